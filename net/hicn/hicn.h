/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_HICN internal definitions shared by the files of hicn.ko.
 *
 * The pieces, and the file of each:
 *
 *   af_hicn.c   socket layer: family, ops tables, bind, connect, release
 *   producer.c  SOCK_PROD: publishing, versions, the producer's store and
 *               its application face (answers interests in the kernel)
 *   consumer.c  SOCK_CONS: the consumer transport (interest window,
 *               retransmission, reassembly, subscription)
 *   cc.c        the consumer's congestion control: window, RTT, RTO
 *   sockopt.c   SOL_HICN options and HICN_INFO
 *   fwd.c       the forwarding pipeline: interest -> CS -> PIT -> FIB ->
 *               face, data -> PIT -> faces (+ CS)
 *   face.c      faces: what the forwarder sends interests and data to
 *   face_udp.c  UDP listeners and faces to other hosts
 *   wire.c      hICN's packet formats (pure: also built on the host)
 *   fib.c       FIB: longest prefix -> next hops, strategies
 *   claim.c     producers' claims of namespaces (adding FIB next hops)
 *   ver_floor.c where versions start under a claim: what the released
 *               claims of the namespace gave out
 *   pit.c       pending-interest table
 *   cs.c        content store
 *   object.c    published objects: the payload that segments point into
 *   pernet.c    per-netns state, garbage collection, sysctls
 *   proc.c      /proc/net/hicn, hicn_stat, hicn_fib
 *   netlink.c   the "hicn" generic netlink family (netlink_gen.[ch] are
 *               generated from Documentation/netlink/specs/hicn.yaml)
 */
#ifndef _NET_HICN_HICN_H
#define _NET_HICN_HICN_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/rhashtable-types.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <uapi/linux/hicn.h>
#include <uapi/linux/hicn_netlink.h>

#include "compat.h"

#define HICN_PIT_BITS		10
#define HICN_CS_BITS		12
#define HICN_PIT_USER_BITS	6
#define HICN_PROD_USER_BITS	6

/*
 * Default send buffer of a producer: a share of net.hicn.prod_mem_max, so
 * that one socket cannot take the whole netns's producer memory, and at
 * most HICN_PROD_SNDBUF (room for a 64 MiB object twice).
 */
#define HICN_PROD_SNDBUF	(256 << 20)
#define HICN_PROD_SNDBUF_SHARE	4
/* Interests a producer keeps waiting for content not yet published. */
#define HICN_HELD_MAX		4096

/**
 * enum hicn_kind - what an interest asks for
 * @HICN_I_EXACT: segment @seg of version @ver
 * @HICN_I_LATEST: segment 0 of the newest version
 * @HICN_I_NEXT: segment 0 of the oldest version newer than @ver
 * @HICN_I_PROBE: the number of the newest version, no payload
 */
enum hicn_kind {
	HICN_I_EXACT,
	HICN_I_LATEST,
	HICN_I_NEXT,
	HICN_I_PROBE,
};

/*
 * In hicn_key.kind, with EXACT or NEXT: the key came off the wire, so
 * its version is a wire version (1..2047, see wire.h) that whoever holds
 * the content expands to the full one.  Such keys are PIT keys of their
 * own: they do not aggregate with the full-version keys of local
 * consumers.
 */
#define HICN_KEY_WIRE		0x100

/*
 * In hicn_key.kind, alone: a name that is not ours, off the wire, from
 * a stock hICN application (a suffix with V = 0 and no kind, see wire.h).
 * @seg holds the 32-bit suffix as it came, @ver is 0.  Such a key is
 * only relayed between faces to other hosts and cached as it is; no
 * local producer answers it and no local consumer asks for it
 * (Documentation/hicn-wire.rst, "Names that are not ours").
 */
#define HICN_KEY_RAW		0x200

/**
 * struct hicn_key - the name an interest asks for, and the PIT key
 * @name: the content name
 * @ver: version (EXACT) or the version to be newer than (NEXT), else 0
 * @seg: segment number (EXACT), else 0
 * @kind: enum hicn_kind
 */
struct hicn_key {
	struct in6_addr	name;
	u32		ver;
	u32		seg;
	u32		kind;
};

static inline bool hicn_key_equal(const struct hicn_key *a,
				  const struct hicn_key *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/*
 * Does @key name one segment, which the CS may hold: an exact name
 * (ours, full or wire version) or a name that is not ours?
 */
static inline bool hicn_key_cacheable(const struct hicn_key *key)
{
	return (key->kind & ~HICN_KEY_WIRE) == HICN_I_EXACT ||
	       key->kind == HICN_KEY_RAW;
}

/**
 * struct hicn_obj - one published version: the bytes segments point into
 * @ref: references: the producer's store, the CS, consumers, data in flight
 * @dead: the producer dropped it (expiry, replacement, close); the CS
 *	stops serving it
 * @data: the payload (kvmalloc), @len bytes
 * @len: object length
 * @seg_size: payload bytes per segment
 * @nsegs: number of segments, at least 1 (an empty object has one)
 * @name: the content name
 * @ver: its version
 * @expires: jiffies after which it is gone, 0 for never
 * @charge: bytes charged to the producer socket and netns
 * @mem: the netns's producer memory (hicn_net.prod_mem): @charge stays on
 *	it until the last reference goes; NULL until published
 * @node: entry in the producer's per-name version list
 * @pn: the producer's state of @name while the store holds it
 * @ver_node: entry in @pn's tree of versions by number
 * @exp_node: entry in the producer's tree of versions by @expires (if
 *	@expires); @pn, @ver_node and @exp_node under hicn_prod.lock
 */
struct hicn_obj {
	refcount_t		ref;
	bool			dead;
	void			*data;
	size_t			len;
	u32			seg_size;
	u32			nsegs;
	struct in6_addr		name;
	u32			ver;
	unsigned long		expires;
	size_t			charge;
	atomic_long_t		*mem;
	struct list_head	node;
	struct hicn_pname	*pn;
	struct rb_node		ver_node;
	struct rb_node		exp_node;
};

/* Data flags. */
#define HICN_DATA_NACK		BIT(0)	/* the producer does not hold it */
#define HICN_DATA_PROBE		BIT(1)	/* answer to a PROBE: ver only */
#define HICN_DATA_FROM_CS	BIT(2)	/* served by the content store */

/**
 * struct hicn_data - a data segment (or NACK) on its way through the
 *	forwarder; the caller of hicn_fwd_data() holds the @obj reference
 * @key: exact name of the segment (name, version, segment)
 * @ikey: the interest it answers, which is the PIT key to satisfy
 * @final_seg: number of the object's last segment
 * @obj_len: object length
 * @off: offset of the payload in the object
 * @len: payload length
 * @flags: HICN_DATA_*
 * @expires: jiffies when it stops being valid, 0 for never
 * @obj: the payload holder, NULL for NACK and PROBE answers
 * @asked_ver: the full version a NEXT interest named, when its key has
 *	only the wire version (HICN_KEY_WIRE), else 0
 * @raw_ah_len: data of a name that is not ours (HICN_KEY_RAW): how many
 *	bytes at the start of the payload are the AH and signature it came
 *	with, passed on untouched
 * @raw_flags: such data's wire flags (HICN_WIRE_F_*), passed on
 * @raw_lifetime: such data's lifetime as it came (ms), passed on
 *	untouched, as a stock forwarder does: the compact format's
 *	signature and manifest digests cover it
 */
struct hicn_data {
	struct hicn_key		key;
	struct hicn_key		ikey;
	u32			final_seg;
	u64			obj_len;
	u64			off;
	u32			len;
	u32			flags;
	unsigned long		expires;
	struct hicn_obj		*obj;
	u32			asked_ver;
	u16			raw_ah_len;
	u8			raw_flags;
	u32			raw_lifetime;
};

struct hicn_face;

/**
 * struct hicn_isig - a signed interest from another host, as it came: a
 *	relay passes its AH, signature and payload on (hicn-wire.rst, "Names
 *	that are not ours"); valid only while the interest is forwarded
 * @buf: the AH, the signature field and the payload, in the datagram
 * @ah_len: bytes of @buf that are the AH and the signature field
 * @len: bytes of @buf
 * @lifetime_ms: the lifetime it came with, which the compact format's
 *	signature covers
 * @format: the wire format it came in; the signature holds in that one
 */
struct hicn_isig {
	const u8		*buf;
	u32			ah_len;
	u32			len;
	u32			lifetime_ms;
	u8			format;
};

/*
 * The hop limit of an interest from an application: how many more hosts
 * it may be forwarded to (hicn-wire.rst, "Loops").
 */
#define HICN_HOP_LIMIT		254

/**
 * struct hicn_face_ops - what the forwarder hands a face
 * @interest: an interest the face should serve (producers, network
 *	faces); called with no forwarder lock held, may call hicn_fwd_data().
 *	Returns 0, or a negative errno when the face refuses it (down:
 *	-ENETDOWN, its queue full: -ENOBUFS), which the forwarder hands back
 *	to the interest's sender; @hops is the hop limit it leaves with
 *	(network faces: at least 1); @sig, if not NULL, the signature it came
 *	with from another host (network faces pass it on)
 * @data: data for an interest the face sent; called with no forwarder lock
 *	held, must not call back into the forwarder
 * @fail: optional; every face an interest this face sent went to is down
 *	or gone, and the forwarder could not send it on through another (no
 *	next hop up, or that face refused it), so nobody will answer @key
 *	(hicn_pit_fail_faces(); process context, hicn_net.lock held but no
 *	table lock, must not call back into the forwarder but for
 *	hicn_pit_cancel())
 * @destroy: optional; the last reference went (any context, may not
 *	sleep): free what @priv points at
 * @kind: what is behind the face, enum hicn_face_kind of the netlink uapi
 */
struct hicn_face_ops {
	int (*interest)(struct hicn_face *face, const struct hicn_key *key,
			unsigned long lifetime, u8 hops,
			const struct hicn_isig *sig);
	void (*data)(struct hicn_face *face, const struct hicn_data *d);
	void (*fail)(struct hicn_face *face, const struct hicn_key *key);
	void (*destroy)(struct hicn_face *face);
	u8 kind;
};

/**
 * struct hicn_face_stats - what crossed a face, counted from any context
 * @interests_in: interests the face brought to the forwarder
 * @interests_out: interests the forwarder gave the face
 * @data_in: data the face brought
 * @data_out: data the forwarder gave the face
 * @unsolicited: data from the face that no interest sent to it asked for,
 *	dropped
 * @refused: interests the face refused (its interest op failed)
 */
struct hicn_face_stats {
	atomic64_t	interests_in;
	atomic64_t	interests_out;
	atomic64_t	data_in;
	atomic64_t	data_out;
	atomic64_t	unsolicited;
	atomic64_t	refused;
};

/**
 * struct hicn_face - an attachment point of the forwarder
 * @ref: references: the owner, FIB next hops, claims, PIT records
 * @id: number shown in /proc/net/hicn_fib, unique in the netns
 * @net: the network namespace (the owner keeps it alive)
 * @ops: the face's handlers
 * @uid: the user the face's PIT in-records are charged to (the socket's
 *	owner)
 * @quota_id: 0 for an application face (its in-records count in its
 *	user's PIT quota), the face's id for a face to another host (a quota
 *	of its own)
 * @up: the face takes interests; READ_ONCE/WRITE_ONCE, the strategies
 *	pass over a face that is down (its owner let it go, or its link is
 *	down: face_link.c)
 * @detached: its owner let it go (hicn_face_detach_locked(), under
 *	hicn_net.lock); READ_ONCE elsewhere; it never comes up again
 * @failing: hicn_pit_fail_faces() fails the PIT entries waiting on it
 *	(set and cleared under hicn_net.lock, read under hicn_net.pit_lock)
 * @out_pending: PIT out-records on the face (interests it was given and
 *	has not answered yet); the load-balance strategy reads it
 * @stats: counters
 * @priv: the face type's own state (network faces), freed by @destroy
 * @lock: protects @sk
 * @sk: the application socket of an application face; NULL once detached
 * @node: entry in hicn_net.faces, under hicn_net.lock
 * @rcu: frees the face after a grace period (UDP faces are looked up
 *	under RCU)
 */
struct hicn_face {
	refcount_t			ref;
	u32				id;
	struct net			*net;
	const struct hicn_face_ops	*ops;
	kuid_t				uid;
	u32				quota_id;
	bool				up;
	bool				detached;
	bool				failing;
	atomic_t			out_pending;
	struct hicn_face_stats		stats;
	void				*priv;
	spinlock_t			lock;	/* protects sk */
	struct sock			*sk;
	struct list_head		node;
	struct rcu_head			rcu;
};

/* Next hops of one FIB entry at most, entries of a netns's FIB at most. */
#define HICN_FIB_NH_MAX		8
#define HICN_FIB_MAX		65536
#define HICN_FIB_BITS		10

/**
 * struct hicn_fib_nh - a next hop
 * @face: the face (a reference, held by the entry)
 * @cost: best route prefers the lowest
 */
struct hicn_fib_nh {
	struct hicn_face	*face;
	u32			cost;
};

/**
 * struct hicn_fib_entry - a FIB prefix; copied on change, read under RCU
 * @node: entry in a hicn_net.fib bucket
 * @prefix: the prefix, host bits cleared
 * @plen: prefix length in bits
 * @strategy: enum hicn_strategy of the netlink uapi (see fib.c)
 * @nnh: next hops in @nh
 * @nh: the next hops, in the order they were added
 * @rcu: frees the entry after readers are done
 */
struct hicn_fib_entry {
	struct hlist_node	node;
	struct in6_addr		prefix;
	u8			plen;
	u8			strategy;
	u8			nnh;
	struct hicn_fib_nh	nh[HICN_FIB_NH_MAX];
	struct rcu_head		rcu;
};

/**
 * struct hicn_claim - a producer's namespace (claim.c)
 * @node: entry in hicn_net.claims, under hicn_net.claim_lock
 * @prefix: the namespace, host bits cleared
 * @plen: prefix length in bits
 * @face: the producer's application face (a reference)
 * @floor: the highest version given out under an overlapping namespace
 *	released before it (ver_floor.c): its versions start above; set
 *	under hicn_net.claim_lock before the claim is returned, then constant
 */
struct hicn_claim {
	struct list_head	node;
	struct in6_addr		prefix;
	unsigned int		plen;
	struct hicn_face	*face;
	u32			floor;
};

/* Version floors of released namespaces a netns keeps (ver_floor.c). */
#define HICN_FLOOR_MAX		1024

/**
 * struct hicn_stats - forwarder counters of a netns, under their table's
 *	lock or atomic where noted
 * @cs_gc_runs: runs of the content store's collector
 * @cs_gc_steps: entries those runs examined
 * @prod_lookups: lookups of a name or a version in a producer's store
 * @prod_lookup_steps: names and versions those lookups compared
 * @prod_expiry_steps: versions and names the producers' expiry examined
 * @cons_scan_steps: window slots the consumers' timeout scans examined
 * @prod_held_steps: held interests compared to find one (a renewal) or
 *	to make room for one
 * @pit_gc_runs: runs of the PIT's collector
 * @pit_gc_steps: entries those runs examined
 * @failover_reforwards: PIT entries forwarded again at once through
 *	another next hop because the faces their interest went to went down
 *	or away (hicn_pit_fail_faces())
 * @data_zerocopy: data segments UDP faces sent from their object's pages,
 *	without a copy of their own (face_udp.c)
 */
struct hicn_stats {
	u64	pit_aggregated;
	u64	pit_drops;
	u64	pit_user_drops;
	u64	pit_expired;
	u64	cs_hits;
	u64	cs_misses;
	u64	cs_evictions;
	u64	cs_gc_runs;
	u64	cs_gc_steps;
	atomic64_t	no_route;
	atomic64_t	interests;
	atomic64_t	data;
	atomic64_t	unsolicited;
	atomic64_t	prod_lookups;
	atomic64_t	prod_lookup_steps;
	atomic64_t	prod_expiry_steps;
	atomic64_t	cons_scan_steps;
	atomic64_t	prod_held_steps;
	u64	pit_gc_runs;
	u64	pit_gc_steps;
	atomic64_t	failover_reforwards;
	atomic64_t	data_zerocopy;
};

/**
 * struct hicn_net - AF_HICN state of one network namespace
 * @lock: protects @sockets, @nr_sockets, @faces, the bound names of the
 *	sockets
 * @sockets: every AF_HICN socket of the namespace (struct hicn_sock.node)
 * @nr_sockets: length of @sockets
 * @faces: every face (struct hicn_face.node)
 * @nr_faces: length of @faces
 * @next_face_id: id of the next face
 * @fib_lock: protects changes to @fib, @fib_plen_count and @fib_entries
 * @fib: FIB entries by (prefix, length) (struct hicn_fib_entry.node), RCU
 *	readers
 * @fib_plen_count: entries of each prefix length, read without the lock
 * @fib_entries: entries in @fib
 * @udp_listeners: UDP listeners (face_udp.c), under @lock
 * @nr_udp_listeners: length of @udp_listeners
 * @next_listener_id: id of the next listener
 * @nr_udp_faces: UDP faces, under @lock
 * @nr_udp_auto: of those, made by a datagram from an unknown peer
 * @link_lock: protects @link_dead
 * @link_dead: the netns is going away: @link_work is not queued any more
 * @link_work: marks the UDP faces up or down (face_link.c)
 * @claim_lock: protects @claims, @nr_claims, @floors, @nr_floors,
 *	@floor_all
 * @claims: producers' claims (struct hicn_claim.node)
 * @nr_claims: length of @claims
 * @floors: released namespaces and the highest version each gave out
 *	(struct hicn_floor, ver_floor.c), oldest first
 * @nr_floors: length of @floors, at most HICN_FLOOR_MAX (read without
 *	the lock by hicn_stat)
 * @floor_all: every claim's versions start above it (records folded)
 * @pit_lock: protects @pit, @pit_entries, @pit_gc_next and the PIT
 *	counters
 * @pit: pending-interest table
 * @pit_entries: entries in @pit
 * @pit_gc_next: the bucket of @pit the collector's next run starts at
 * @pit_users: struct hicn_pit_user by uid: the in-records of each user
 * @cs_lock: protects @cs, @cs_lru, @cs_entries, @cs_bytes, @cs_gc_next,
 *	CS counters
 * @cs: content store hash
 * @cs_lru: content store entries, most recently used first
 * @cs_entries: entries in @cs
 * @cs_bytes: bytes charged to the CS
 * @cs_gc_next: where the CS collector goes on: the next entry of @cs_lru
 *	to examine, toward the head; @cs_lru itself when a sweep is done
 * @prod_mem: bytes of published content in the netns, names included
 * @prod_names: names the netns's producers hold (struct hicn_pname)
 * @prod_held: interests the netns's producers hold (struct hicn_held)
 * @prod_users: struct hicn_prod_user by uid, under @lock
 * @stats: counters
 * @gc: expires PIT and CS entries while the tables are not empty
 * @sysctl_hdr: net.hicn sysctls
 * @pit_max: sysctl net.hicn.pit_max
 * @cs_max_entries: sysctl net.hicn.cs_max_entries
 * @cs_mem_max: sysctl net.hicn.cs_mem_max
 * @prod_mem_max: sysctl net.hicn.prod_mem_max
 * @pit_user_max: sysctl net.hicn.pit_user_max
 * @unprivileged_prefix_min: sysctl net.hicn.unprivileged_prefix_min
 * @prod_user_mem_max: sysctl net.hicn.prod_user_mem_max
 * @ceil: the most the limits may be raised to, in a netns of a
 *	non-initial user namespace (see pernet.c)
 */
struct hicn_net {
	struct mutex		lock;		/* protects sockets, faces */
	struct list_head	sockets;
	unsigned int		nr_sockets;
	struct list_head	faces;
	unsigned int		nr_faces;
	u32			next_face_id;

	spinlock_t		fib_lock;	/* protects fib changes */
	struct hlist_head	fib[1 << HICN_FIB_BITS];
	unsigned int		fib_plen_count[HICN_PREFIX_MAX + 1];
	unsigned int		fib_entries;

	struct list_head	udp_listeners;
	unsigned int		nr_udp_listeners;
	u32			next_listener_id;
	unsigned int		nr_udp_faces;
	unsigned int		nr_udp_auto;

	spinlock_t		link_lock;	/* protects link_dead */
	bool			link_dead;
	struct delayed_work	link_work;

	struct mutex		claim_lock;	/* protects claims, floors */
	struct list_head	claims;
	unsigned int		nr_claims;
	struct list_head	floors;		/* protected by claim_lock */
	unsigned int		nr_floors;	/* protected by claim_lock */
	u32			floor_all;	/* protected by claim_lock */

	spinlock_t		pit_lock;	/* protects pit */
	struct hlist_head	pit[1 << HICN_PIT_BITS];
	unsigned int		pit_entries;
	unsigned int		pit_gc_next;
	struct hlist_head	pit_users[1 << HICN_PIT_USER_BITS];

	spinlock_t		cs_lock;	/* protects cs, cs_lru */
	struct hlist_head	cs[1 << HICN_CS_BITS];
	struct list_head	cs_lru;
	unsigned int		cs_entries;
	u64			cs_bytes;
	struct list_head	*cs_gc_next;

	atomic_long_t		prod_mem;
	atomic_long_t		prod_names;
	atomic_long_t		prod_held;
	struct hlist_head	prod_users[1 << HICN_PROD_USER_BITS];
	struct hicn_stats	stats;
	struct delayed_work	gc;

	struct ctl_table_header	*sysctl_hdr;
	int			pit_max;
	int			cs_max_entries;
	long			cs_mem_max;
	long			prod_mem_max;
	int			pit_user_max;
	int			unprivileged_prefix_min;
	long			prod_user_mem_max;
	struct {
		int		pit_max;
		int		cs_max_entries;
		long		cs_mem_max;
		long		prod_mem_max;
		int		pit_user_max;
		long		prod_user_mem_max;
	} ceil;
};

/**
 * struct hicn_slot - one segment of the consumer's window
 * @obj: the payload when READY (a reference)
 * @off: payload offset in @obj
 * @len: payload length
 * @sent: jiffies the interest was last sent
 * @sent_ns: the same, ktime_get_ns(), for RTT samples and loss events
 * @pending: in hicn_cons.pending or hicn_cons.expiring while PENDING
 *	(window slots only; zeroed, never linked, otherwise)
 * @state: HICN_SLOT_*
 * @tries: retransmissions so far
 * @early: the last one was sent before the RTO (RACK): an answer sooner
 *	than any round trip is the first sending's (hicn_cc_spurious())
 * @remote: its last sending went toward another host (a UDP face), where
 *	it can be lost: only then do interests answered after it make it
 *	lost (RACK); one that a local producer serves is answered in the
 *	order the scheduler runs the consumers that share its PIT entries
 */
struct hicn_slot {
	struct hicn_obj	*obj;
	u64		off;
	u32		len;
	unsigned long	sent;
	u64		sent_ns;
	struct list_head pending;
	u8		state;
	u8		tries;
	u8		early;
	u8		remote;
};

enum {
	HICN_SLOT_FREE,
	HICN_SLOT_PENDING,
	HICN_SLOT_READY,
	HICN_SLOT_LOST,
};

/**
 * struct hicn_cc - congestion control of a consumer's window (cc.c),
 *	under hicn_cons.lock
 * @cwnd: the window: interests of the window outstanding at most
 * @cwnd_cnt: segments received since the window last grew above @ssthresh
 * @ssthresh: the window grows by one per segment below it
 * @min: HICN_MIN_WINDOW_SIZE
 * @max: HICN_MAX_WINDOW_SIZE; the ring has this many slots
 * @min_rtt_us: smallest RTT sample
 * @backoff: doublings of the RTO since the last RTT sample
 * @srtt8_us: smoothed RTT, microseconds times 8; 0 before a sample
 * @rttvar4_us: RTT mean deviation, microseconds times 4
 * @epoch_ns: when the last loss event started; losses of interests sent
 *	before it are part of it
 * @cuts: loss events (window halvings)
 * @rack_sent_ns: the latest send time of an interest answered at its
 *	first sending: interests sent before it and not answered may be
 *	lost (hicn_cc_rack_wait())
 * @reo_mult: the reordering window, in quarters of the minimum RTT
 *	(1 at first; one more at each spurious early loss, up to SRTT)
 * @prior_cwnd: @cwnd before the last loss event, which is undone when
 *	all its losses prove spurious (0: nothing to undo)
 * @prior_ssthresh: @ssthresh before it
 * @event_losses: losses (timeouts and early) of the last loss event
 * @event_spurious: of those, early ones that proved spurious
 * @round_ns: when the round trip being measured began: it ends with the
 *	first sample of an interest sent after then
 * @round_min_us: the smallest RTT sample of that round so far (0: none)
 * @veno_rtt_us: the smallest RTT sample of the last whole round, which
 *	Veno's backlog compares with @min_rtt_us (0: no round yet)
 */
struct hicn_cc {
	u32	cwnd;
	u32	cwnd_cnt;
	u32	ssthresh;
	u32	min;
	u32	max;
	u32	min_rtt_us;
	u32	backoff;
	u64	srtt8_us;
	u64	rttvar4_us;
	u64	epoch_ns;
	u64	cuts;
	u64	rack_sent_ns;
	u32	reo_mult;
	u32	prior_cwnd;
	u32	prior_ssthresh;
	u32	event_losses;
	u32	event_spurious;
	u64	round_ns;
	u32	round_min_us;
	u32	veno_rtt_us;
};

enum hicn_fetch_state {
	HICN_F_IDLE,	/* no fetch */
	HICN_F_FIRST,	/* waiting for segment 0 (or the probe answer) */
	HICN_F_DATA,	/* fetching segments 1..final */
	HICN_F_EOF,	/* stream mode: object read, recv() returns 0 once */
};

/**
 * struct hicn_cons - consumer state
 * @lock: protects the fetch state touched by arriving data (@state,
 *	@first, @ring, @ver, @nsegs, @obj_len, @seg_size, @gen, @cc,
 *	@pending, @expiring, @in_flight)
 * @lifetime: interest lifetime, jiffies
 * @lifetime_ms: the same, as set
 * @retx_limit: retransmissions before ETIMEDOUT (CONS_REL)
 * @cc: congestion control: the window and the RTO (under @lock)
 * @subscribe: fetch the next version instead of the newest
 * @connected: connect() named the object: stream mode
 * @named: @target is set (by bind() or connect())
 * @target: the name to fetch; sin_suffix is the version
 * @after: subscription: the version to be newer than
 * @after_known: @after is valid (else a PROBE asks for it)
 * @seen: the newest version of @target's name received whole; a
 *	subscription asks for versions after it at least, whatever a PROBE
 *	answers and when a PROBE goes unanswered (0 when the name changes)
 * @state: enum hicn_fetch_state
 * @first: the interest for segment 0 (LATEST, NEXT, EXACT or PROBE)
 * @first_slot: its retransmission state
 * @ver: version being fetched
 * @nsegs: segments of the object
 * @obj_len: its length
 * @seg_size: payload bytes per segment (from segment 0)
 * @base: first segment not yet consumed by the reader
 * @base_off: bytes of segment @base already consumed (stream mode)
 * @next_req: next segment to ask for
 * @ring: cc.max slots when allocated, segment s in ring[s % ring_size]
 * @lost: segments given up on in this object (CONS_UNREL)
 * @ring_size: slots in @ring
 * @pending: the window's PENDING slots that may be resent, in the order
 *	their interests were last sent, so soonest deadline first (all share
 *	the RTO): a scan for timeouts stops at the first slot not due
 * @expiring: the PENDING slots that will not be resent (last try, or
 *	CONS_UNREL), in the same order; they wait for @lifetime
 * @in_flight: length of @pending and @expiring: interests of the window
 *	outstanding, at most cc.cwnd are sent
 * @gen: bumped at every change a reader may wait for
 * @fetch: bumped when a fetch starts or is given up: a reader that sees it
 *	change knows the object it was reading is gone
 * @reading: a reader is in recvmsg(); others wait for it (lock_sock)
 * @pumping: the pump is running; arriving data need not schedule it
 * @closing: the socket is closing; @work may not be armed any more
 * @armed: @work is queued to run at @next_run
 * @next_run: jiffies
 * @work: runs the pump (retransmission, window refill) when no reader does
 * @rcv: a kernel socket that counts the segments held for the reader in
 *	the protocol's memory and the creator's memory cgroup
 *	(hicn_cons_rmem_schedule()); its sk_forward_alloc and sk_rmem_alloc
 *	are protected by @lock
 */
struct hicn_cons {
	spinlock_t		lock;	/* protects the fetch state */
	unsigned long		lifetime;
	u32			lifetime_ms;
	u32			retx_limit;
	struct hicn_cc		cc;
	bool			subscribe;
	bool			connected;
	bool			named;
	struct sockaddr_hicn	target;
	u32			after;
	bool			after_known;
	u32			seen;		/* protected by lock */

	enum hicn_fetch_state	state;
	struct hicn_key		first;
	struct hicn_slot	first_slot;
	u32			ver;
	u32			nsegs;
	u64			obj_len;
	u32			seg_size;
	u32			base;
	u32			base_off;
	u32			next_req;
	struct hicn_slot	*ring;
	u32			ring_size;
	struct list_head	pending;
	struct list_head	expiring;
	u32			in_flight;
	u32			lost;
	u32			gen;
	u32			fetch;
	bool			reading;
	bool			pumping;
	bool			closing;
	bool			armed;
	unsigned long		next_run;
	struct delayed_work	work;
	struct sock		*rcv;
};

/**
 * struct hicn_pname - the versions a producer holds of one name; every
 *	field under hicn_prod.lock
 * @node: entry in hicn_prod.names, the hash by @name
 * @all: entry in hicn_prod.name_list
 * @name: the name
 * @last_ver: the last version number given out
 * @versions: struct hicn_obj.node, oldest first
 * @by_ver: the same versions by number (struct hicn_obj.ver_node)
 */
struct hicn_pname {
	struct rhash_head	node;
	struct list_head	all;
	struct in6_addr		name;
	u32			last_ver;
	struct list_head	versions;
	struct rb_root		by_ver;
};

/*
 * What a name costs its producer: its state and its share of the hash's
 * buckets (at most 1 / 0.3 of them per name: the hash shrinks below 30 %).
 */
#define HICN_PNAME_CHARGE	(sizeof(struct hicn_pname) + 4 * sizeof(void *))

/**
 * struct hicn_prod_user - what the producers of one user hold in a netns
 * @node: entry in hicn_net.prod_users
 * @uid: the user (owner of the sockets)
 * @nsocks: producers of the user that published, under hicn_net.lock
 * @mem: bytes their stores hold, against net.hicn.prod_user_mem_max
 */
struct hicn_prod_user {
	struct hlist_node	node;
	kuid_t			uid;
	unsigned int		nsocks;
	atomic_long_t		mem;
};

/**
 * struct hicn_held - an interest a producer keeps until it can answer
 * @node: entry in hicn_prod.held
 * @key: the interest
 * @expires: jiffies when it is dropped
 */
struct hicn_held {
	struct list_head	node;
	struct rhash_head	knode;
	struct hicn_key		key;
	unsigned long		expires;
};

/**
 * struct hicn_prod - producer state
 * @lock: protects @names, @name_list, @expiry, @steps, @held, @nheld,
 *	@nversions
 *	(BH off: network faces will ask from softirq)
 * @names: struct hicn_pname by name, a hash that grows with them (lookups
 *	and changes under @lock; the hash resizes itself in a work)
 * @name_list: the same names (struct hicn_pname.all), for walks
 * @expiry: the versions that expire, soonest first (hicn_obj.exp_node)
 * @steps: names the running lookup compared (hicn_stat)
 * @held: interests waiting for content (struct hicn_held), oldest first
 * @held_keys: the same by their whole key (hicn_held.knode), so that an
 *	interest renewed is found in a few comparisons
 * @nheld: length of @held
 * @nversions: versions held
 * @user: the socket owner's producer memory, from the first publication
 * @ver_floor: the highest version given out under a name since released,
 *	or under the namespace by the producers that claimed it before
 *	(ver_floor.c); a name published anew starts above it
 * @seg_size: HICN_PACKET_SIZE
 * @expiry_ms: HICN_CONTENT_EXPIRY
 * @closing: the socket is closing; @work may not be armed any more
 * @armed: @work is queued to run at @next_run
 * @next_run: jiffies
 * @work: drops expired versions and held interests
 */
struct hicn_prod {
	spinlock_t		lock;	/* protects names, held */
	struct rhashtable	names;
	struct list_head	name_list;
	struct rb_root_cached	expiry;
	unsigned int		steps;
	struct list_head	held;
	struct rhashtable	held_keys;
	unsigned int		nheld;
	unsigned int		nversions;
	struct hicn_prod_user	*user;
	u32			ver_floor;
	u32			seg_size;
	u32			expiry_ms;
	bool			closing;
	bool			armed;
	unsigned long		next_run;
	struct delayed_work	work;
};

/**
 * struct hicn_sock - an AF_HICN socket
 * @sk: the generic socket; must stay first (hicn_sk() casts)
 * @node: entry in hicn_net.sockets, protected by hicn_net.lock
 * @name: the name or namespace given to bind(), valid when @bound;
 *	written under lock_sock() and hicn_net.lock
 * @bound: bind() succeeded
 * @claim: a producer's claim of @name, NULL otherwise
 * @face: the socket's application face
 * @info: counters for HICN_INFO (updated with WRITE_ONCE, read racily)
 * @cons: consumer state (SOCK_CONS)
 * @prod: producer state (SOCK_PROD)
 */
struct hicn_sock {
	struct sock		sk;
	struct list_head	node;
	struct sockaddr_hicn	name;
	bool			bound;
	struct hicn_claim	*claim;
	struct hicn_face	*face;
	struct hicn_info	info;
	union {
		struct hicn_cons	cons;
		struct hicn_prod	prod;
	};
};

static inline struct hicn_sock *hicn_sk(const struct sock *sk)
{
	return (struct hicn_sock *)sk;
}

/*
 * HICN_INFO counters are bumped from several contexts without a common
 * lock; a lost increment under a race is acceptable for statistics.
 */
static inline void hicn_count(u64 *counter, u64 n)
{
	WRITE_ONCE(*counter, READ_ONCE(*counter) + n);
}

/* af_hicn.c */
extern int hicn_family;
extern struct proto hicn_proto;
extern struct proto hicn_rcv_proto;
int hicn_addr_check(const struct sock *sk,
		    const struct sockaddr_unsized *uaddr, int len,
		    struct sockaddr_hicn *name);

/* object.c */
struct hicn_obj *hicn_obj_alloc(size_t len, u32 seg_size);
void hicn_obj_put(struct hicn_obj *obj);
struct page *hicn_obj_page(const struct hicn_obj *obj, size_t off);
static inline struct hicn_obj *hicn_obj_get(struct hicn_obj *obj)
{
	refcount_inc(&obj->ref);
	return obj;
}

void hicn_obj_fill(const struct hicn_obj *obj, u32 seg, struct hicn_data *d);
int hicn_obj_init(void);
void hicn_obj_exit(void);

/* face.c */
struct hicn_face *hicn_face_create(struct net *net,
				   const struct hicn_face_ops *ops,
				   struct sock *sk);
struct hicn_face *hicn_face_create_locked(struct net *net,
					  const struct hicn_face_ops *ops,
					  struct sock *sk, void *priv);
void hicn_face_detach(struct hicn_face *face);
void hicn_face_detach_locked(struct hicn_face *face);
struct sock *hicn_face_sk(struct hicn_face *face);
static inline struct hicn_face *hicn_face_get(struct hicn_face *face)
{
	refcount_inc(&face->ref);
	return face;
}

void hicn_face_put(struct hicn_face *face);

/* fib.c */
int hicn_fib_add(struct hicn_net *hn, const struct in6_addr *prefix,
		 unsigned int plen, struct hicn_face *face, u32 cost);
int hicn_fib_del(struct hicn_net *hn, const struct in6_addr *prefix,
		 unsigned int plen, struct hicn_face *face);
int hicn_fib_set_strategy(struct hicn_net *hn, const struct in6_addr *prefix,
			  unsigned int plen, unsigned int strategy);
struct hicn_face *hicn_fib_lookup(struct hicn_net *hn,
				  const struct in6_addr *name,
				  const struct hicn_face *in);
struct hicn_fib_entry *hicn_fib_get_rcu(struct hicn_net *hn,
					const struct in6_addr *prefix,
					unsigned int plen);
void hicn_fib_del_face(struct hicn_net *hn, struct hicn_face *face);
void hicn_fib_flush(struct hicn_net *hn);
void hicn_fib_walk(struct hicn_net *hn,
		   void (*fn)(const struct hicn_fib_entry *e, unsigned int i,
			      void *arg),
		   void *arg);

/* face_udp.c */
#define HICN_UDP_PORT		9695
#define HICN_UDP_LISTENERS_MAX	64
#define HICN_UDP_FACES_MAX	1024
#define HICN_UDP_AUTO_MAX	256

/**
 * struct hicn_udp_face_info - a UDP face as netlink shows it
 * @listener: its listener's id
 * @remote: the peer's address and port
 * @format: enum hicn_wire_format it sends
 * @auto_created: made by a datagram from an unknown peer
 * @malformed: datagrams dropped as malformed
 * @tx_drops: packets it could not send
 * @hop_drops: interests from it dropped for their hop limit
 * @drops: what it dropped on receipt, by HICN_A_FACE_DROPS_* reason
 */
struct hicn_udp_face_info {
	u32			listener;
	struct sockaddr_storage	remote;
	u8			format;
	bool			auto_created;
	u64			malformed;
	u64			tx_drops;
	u64			hop_drops;
	u64			drops[HICN_A_FACE_DROPS_MAX + 1];
};

/* The drop reasons of a malformed datagram: TRUNCATED up to this one. */
#define HICN_FACE_DROPS_MALFORMED_LAST	HICN_A_FACE_DROPS_NAME

/**
 * struct hicn_udp_listener_info - a listener as netlink shows it
 * @id: its id
 * @local: bound address and port
 * @auto_faces: unknown peers make faces
 * @faces: its faces
 * @no_face: datagrams of peers without a face, dropped
 */
struct hicn_udp_listener_info {
	u32			id;
	struct sockaddr_storage	local;
	bool			auto_faces;
	unsigned int		faces;
	u64			no_face;
};

int hicn_udp_listener_add(struct net *net, const struct sockaddr_storage *local,
			  bool auto_faces, u32 *id);
int hicn_udp_listener_del(struct net *net, u32 id);
int hicn_udp_face_add(struct net *net, u32 listener,
		      const struct sockaddr_storage *remote, u8 format,
		      u32 *face_id);
int hicn_udp_face_del(struct net *net, u32 face_id);
bool hicn_udp_face_info(const struct hicn_face *face,
			struct hicn_udp_face_info *info);
int hicn_udp_listener_walk(struct hicn_net *hn, u32 after,
			   int (*fn)(const struct hicn_udp_listener_info *li,
				     void *arg),
			   void *arg);
void hicn_udp_net_exit(struct hicn_net *hn);
bool hicn_udp_link_update(struct hicn_net *hn);

/* face_link.c: link state of the UDP faces */
bool hicn_link_reachable(struct net *net, const struct sockaddr_storage *remote);
void hicn_link_recheck(struct net *net);
void hicn_link_net_init(struct hicn_net *hn);
void hicn_link_net_exit(struct hicn_net *hn);
int hicn_link_init(void);
void hicn_link_exit(void);
int hicn_udp_init(void);
void hicn_udp_exit(void);

/* claim.c */
struct hicn_claim *hicn_claim(struct hicn_net *hn,
			      const struct in6_addr *prefix,
			      unsigned int plen, struct hicn_face *face);
void hicn_claim_release(struct hicn_net *hn, struct hicn_claim *c, u32 top);

/* ver_floor.c */
u32 hicn_floor_of(struct hicn_net *hn, const struct in6_addr *prefix,
		  unsigned int plen);
void hicn_floor_add(struct hicn_net *hn, const struct in6_addr *prefix,
		    unsigned int plen, u32 top);
void hicn_floor_flush(struct hicn_net *hn);

/* pit.c */
int hicn_pit_insert(struct hicn_net *hn, const struct hicn_key *key,
		    struct hicn_face *face, unsigned long lifetime,
		    struct hicn_face *out, u8 hops, bool *forward);
bool hicn_pit_solicited(struct hicn_net *hn, const struct hicn_key *key,
			const struct hicn_face *from);
void hicn_pit_satisfy(struct hicn_net *hn, const struct hicn_data *d,
		      const struct hicn_face *from);
void hicn_pit_cancel(struct hicn_net *hn, const struct hicn_key *key,
		     struct hicn_face *face);
bool hicn_pit_gc(struct hicn_net *hn);
void hicn_pit_fail_faces(struct hicn_net *hn);
void hicn_pit_flush(struct hicn_net *hn);

/* cs.c */
bool hicn_cs_lookup(struct hicn_net *hn, const struct hicn_key *key,
		    struct hicn_data *d, bool again);
void hicn_cs_insert(struct hicn_net *hn, const struct hicn_data *d);
bool hicn_cs_gc(struct hicn_net *hn);
void hicn_cs_flush(struct hicn_net *hn);
unsigned int hicn_cs_flush_prefix(struct hicn_net *hn,
				  const struct in6_addr *prefix,
				  unsigned int plen);

/*
 * Called by hicn_cs_walk() for each valid entry it meets: 0 when it used
 * the entry, > 0 when it passed it over, < 0 to stop the walk there.
 */
typedef int (*hicn_cs_walk_fn)(const struct hicn_data *d, void *arg);
int hicn_cs_walk(struct hicn_net *hn, unsigned long cursor[2],
		 const struct in6_addr *prefix, unsigned int plen,
		 hicn_cs_walk_fn fn, void *arg);
int hicn_cs_init(void);
void hicn_cs_exit(void);

/* fwd.c */
int hicn_fwd_interest_via(struct hicn_face *face, const struct hicn_key *key,
			  unsigned long lifetime, u8 hops, bool *remote);
int hicn_fwd_interest(struct hicn_face *face, const struct hicn_key *key,
		      unsigned long lifetime, u8 hops,
		      const struct hicn_isig *sig);
void hicn_fwd_data(struct hicn_face *face, const struct hicn_data *d);

/* producer.c */
extern const struct hicn_face_ops hicn_prod_face_ops;
int hicn_prod_init(struct hicn_sock *hs);
void hicn_prod_claimed(struct hicn_sock *hs, u32 floor);
void hicn_prod_release(struct hicn_sock *hs);
int hicn_prod_sendmsg(struct socket *sock, struct msghdr *msg, size_t len);
__poll_t hicn_prod_poll(struct sock *sk);

/* consumer.c */
extern const struct hicn_face_ops hicn_cons_face_ops;
int hicn_cons_init(struct hicn_sock *hs);
void hicn_cons_release(struct hicn_sock *hs);
int hicn_cons_connect(struct socket *sock, struct sockaddr_unsized *uaddr,
		      int len, int flags);
int hicn_cons_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
		      int flags);
__poll_t hicn_cons_poll(struct sock *sk);
void hicn_cons_start(struct hicn_sock *hs);
void hicn_cons_set_target(struct hicn_sock *hs,
			  const struct sockaddr_hicn *name);
void hicn_cons_kick(struct hicn_sock *hs);
void hicn_cons_shutdown(struct hicn_sock *hs);

/* cc.c */
void hicn_cc_init(struct hicn_cc *cc);
void hicn_cc_set_bounds(struct hicn_cc *cc, u32 min, u32 max);
void hicn_cc_data(struct hicn_cc *cc, u64 sent_ns, bool sample);
bool hicn_cc_loss(struct hicn_cc *cc, u64 sent_ns);
bool hicn_cc_timeout(struct hicn_cc *cc, u64 sent_ns);
unsigned long hicn_cc_rack_wait(const struct hicn_cc *cc, u64 sent_ns);
bool hicn_cc_spurious(struct hicn_cc *cc, u64 sent_ns);
unsigned long hicn_cc_rto(const struct hicn_cc *cc, u32 lifetime_ms);
void hicn_cc_info(const struct hicn_cc *cc, u32 lifetime_ms,
		  struct hicn_info *info);

/* sockopt.c */
int hicn_setsockopt(struct socket *sock, int level, int optname,
		    sockptr_t optval, unsigned int optlen);
int hicn_getsockopt(struct socket *sock, int level, int optname,
		    char __user *optval, int __user *optlen);

/* pernet.c */
struct hicn_net *hicn_pernet(const struct net *net);
void hicn_pernet_link(struct hicn_sock *hs);
void hicn_pernet_unlink(struct hicn_sock *hs);
void hicn_pernet_set_name(struct hicn_sock *hs,
			  const struct sockaddr_hicn *name);
void hicn_gc_kick(struct hicn_net *hn);
void hicn_cs_limits_changed(struct hicn_net *hn);
int hicn_pernet_init(void);
void hicn_pernet_exit(void);

/* fault.c: deliberate bugs for the harness self-test (HICN_FAULT=...) */
#ifdef HICN_FAULT_INJECT
void hicn_fault_inject(void);
#else
static inline void hicn_fault_inject(void)
{
}
#endif

/* proc.c */

/* The lines of /proc/net/hicn_stat, in order. */
enum hicn_stat_item {
	HICN_STAT_PIT_ENTRIES,
	HICN_STAT_PIT_MAX,
	HICN_STAT_PIT_AGGREGATED,
	HICN_STAT_PIT_DROPS,
	HICN_STAT_PIT_EXPIRED,
	HICN_STAT_PIT_USER_MAX,
	HICN_STAT_PIT_USER_DROPS,
	HICN_STAT_CS_ENTRIES,
	HICN_STAT_CS_MAX_ENTRIES,
	HICN_STAT_CS_BYTES,
	HICN_STAT_CS_MEM_MAX,
	HICN_STAT_CS_HITS,
	HICN_STAT_CS_MISSES,
	HICN_STAT_CS_EVICTIONS,
	HICN_STAT_CS_GC_RUNS,
	HICN_STAT_CS_GC_STEPS,
	HICN_STAT_FIB_ENTRIES,
	HICN_STAT_FACES,
	HICN_STAT_NO_ROUTE,
	HICN_STAT_INTERESTS,
	HICN_STAT_DATA,
	HICN_STAT_UNSOLICITED,
	HICN_STAT_PROD_MEM,
	HICN_STAT_PROD_NAMES,
	HICN_STAT_PROD_HELD,
	HICN_STAT_PROD_LOOKUPS,
	HICN_STAT_PROD_LOOKUP_STEPS,
	HICN_STAT_PROD_EXPIRY_STEPS,
	HICN_STAT_CONS_SCAN_STEPS,
	HICN_STAT_PROD_HELD_STEPS,
	HICN_STAT_PIT_GC_RUNS,
	HICN_STAT_PIT_GC_STEPS,
	HICN_STAT_FIB_FLOORS,
	HICN_STAT_FAILOVER_REFORWARDS,
	HICN_STAT_DATA_ZEROCOPY,
	HICN_STAT_NUM
};

void hicn_stat_read(struct hicn_net *hn, u64 val[HICN_STAT_NUM]);
int hicn_proc_init_net(struct net *net);
void hicn_proc_exit_net(struct net *net);

/* netlink.c, netlink_face.c, netlink_route.c */
int hicn_netlink_init(void);
void hicn_netlink_exit(void);
void hicn_nl_ns_event(struct hicn_sock *hs, bool claimed);
void hicn_nl_face_event(struct hicn_face *face, u8 cmd);
void hicn_nl_route_event(const struct hicn_fib_entry *e, unsigned int i,
			 bool added);

#endif /* _NET_HICN_HICN_H */
