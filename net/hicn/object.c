// SPDX-License-Identifier: GPL-2.0
/*
 * Published objects.  A publication's bytes are copied once, into one
 * buffer; its segments are (object, offset, length) views of it, so the
 * producer's store, the content store and consumers share them by
 * reference and no segment is ever copied in the kernel.  A UDP face
 * hands a segment's bytes to its socket as references to these pages
 * (face_udp.c), so the buffer is whole pages of the page allocator, never
 * slab memory, which an sk_buff may not point at: one page for an object
 * of up to a page, vmalloc()'s pages beyond.  An object is charged for
 * whole pages (hicn_obj.charge) in either case.  A page an sk_buff still
 * points at outlives the object: the page allocator frees it with its
 * last reference.
 */

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "hicn.h"

static struct kmem_cache *hicn_obj_cache __read_mostly;

/* @len bytes (at least 1) of whole pages, charged to the memory cgroup. */
static void *hicn_obj_data_alloc(size_t len)
{
	struct page *page;

	if (len > PAGE_SIZE)
		return __vmalloc(len, GFP_KERNEL_ACCOUNT);
	page = alloc_page(GFP_KERNEL_ACCOUNT);
	return page ? page_address(page) : NULL;
}

static void hicn_obj_data_free(void *data)
{
	if (!data)
		return;
	if (is_vmalloc_addr(data))
		vfree(data);
	else
		put_page(virt_to_page(data));
}

/**
 * hicn_obj_page() - the page that holds byte @off of an object's data
 * @obj: the object
 * @off: below obj->len
 *
 * Return: the page; byte @off is at offset_in_page() of obj->data + @off.
 */
struct page *hicn_obj_page(const struct hicn_obj *obj, size_t off)
{
	const u8 *p = (const u8 *)obj->data + off;

	return is_vmalloc_addr(p) ? vmalloc_to_page(p) : virt_to_page(p);
}

/**
 * hicn_obj_alloc() - allocate an object of @len bytes
 * @len: payload length, at most HICN_OBJECT_MAX
 * @seg_size: payload bytes per segment
 *
 * The payload is charged to the caller's memory cgroup.
 * Return: the object with one reference, NULL without memory.
 */
struct hicn_obj *hicn_obj_alloc(size_t len, u32 seg_size)
{
	struct hicn_obj *obj;

	obj = kmem_cache_zalloc(hicn_obj_cache, GFP_KERNEL_ACCOUNT);
	if (!obj)
		return NULL;
	if (len) {
		obj->data = hicn_obj_data_alloc(len);
		if (!obj->data) {
			kmem_cache_free(hicn_obj_cache, obj);
			return NULL;
		}
	}
	refcount_set(&obj->ref, 1);
	obj->len = len;
	obj->seg_size = seg_size;
	obj->nsegs = len ? DIV_ROUND_UP(len, seg_size) : 1;
	obj->charge = PAGE_ALIGN(len) + sizeof(*obj);
	INIT_LIST_HEAD(&obj->node);
	RB_CLEAR_NODE(&obj->ver_node);
	RB_CLEAR_NODE(&obj->exp_node);
	return obj;
}

/*
 * The last reference goes: the netns's charge with it, which outlives the
 * producer's when a consumer or the content store still holds the object.
 */
void hicn_obj_put(struct hicn_obj *obj)
{
	if (obj && refcount_dec_and_test(&obj->ref)) {
		if (obj->mem)
			atomic_long_sub(obj->charge, obj->mem);
		hicn_obj_data_free(obj->data);
		kmem_cache_free(hicn_obj_cache, obj);
	}
}

/**
 * hicn_obj_fill() - describe segment @seg of @obj as data
 * @obj: the object
 * @seg: segment number, below obj->nsegs
 * @d: filled in; d->obj is set but no reference is taken
 */
void hicn_obj_fill(const struct hicn_obj *obj, u32 seg, struct hicn_data *d)
{
	memset(&d->key, 0, sizeof(d->key));
	d->key.name = obj->name;
	d->key.ver = obj->ver;
	d->key.seg = seg;
	d->key.kind = HICN_I_EXACT;
	d->final_seg = obj->nsegs - 1;
	d->obj_len = obj->len;
	d->off = (u64)seg * obj->seg_size;
	d->len = min_t(u64, obj->seg_size, obj->len - d->off);
	d->flags = 0;
	d->expires = obj->expires;
	d->obj = (struct hicn_obj *)obj;
}

int hicn_obj_init(void)
{
	hicn_obj_cache = KMEM_CACHE(hicn_obj, 0);
	return hicn_obj_cache ? 0 : -ENOMEM;
}

void hicn_obj_exit(void)
{
	kmem_cache_destroy(hicn_obj_cache);
}
