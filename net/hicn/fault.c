// SPDX-License-Identifier: GPL-2.0
/*
 * Deliberate bugs, built only for the VM harness's self-test
 * (tools/testing/vm/selftest.sh, "make check-harness"): they prove that the
 * debug kernel's detectors, and the harness reading them, catch a leak and
 * a use-after-free in this module.  Never part of a normal build.
 */

#include <linux/compiler.h>
#include <linux/slab.h>

#include "hicn.h"

#if defined(HICN_FAULT_leak)
/* One allocation per socket, never freed: kmemleak must report it. */
void hicn_fault_inject(void)
{
	void *p = kmalloc(192, GFP_KERNEL);

	OPTIMIZER_HIDE_VAR(p);
}
#elif defined(HICN_FAULT_uaf)
/* A read of freed memory: KASAN must report it. */
void hicn_fault_inject(void)
{
	u8 *p = kmalloc(192, GFP_KERNEL);

	if (!p)
		return;
	kfree(p);
	OPTIMIZER_HIDE_VAR(p);
	pr_info("fault injection read %u\n", READ_ONCE(p[17]));
}
#else
#error "HICN_FAULT must be leak or uaf"
#endif
