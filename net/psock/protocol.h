/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IPPROTO_PSOCK internal definitions.  Symbols carry the pstripe_ prefix:
 * "psock" alone already names KCM's and BPF sockmap's structures.
 */
#ifndef _NET_PSOCK_PROTOCOL_H
#define _NET_PSOCK_PROTOCOL_H

#include <linux/ipv6.h>
#include <linux/siphash.h>
#include <linux/spinlock.h>
#include <linux/sockptr.h>
#include <linux/workqueue.h>
#include <net/inet_sock.h>
#include <net/tcp.h>
#include <uapi/linux/psock.h>
#include <uapi/linux/psock_netlink.h>

#include "compat.h"
#include "wire.h"

/*
 * The functions each message of a connection runs through, from send()
 * to the peer's recv(): GCC places them together in .text.hot, so that a
 * message touches four pages of the module's code instead of fourteen
 * spread over it (small messages: bench/psock_rr.sh).
 */
#define __pstripe_hot	__attribute__((__hot__))

/* Counters of /proc/net/psock, per netns (mib.c). */
enum {
	PSTRIPE_MIB_ACTIVE_OPENS,	/* connect() completed */
	PSTRIPE_MIB_PASSIVE_OPENS,	/* connections ready for accept() */
	PSTRIPE_MIB_FALLBACKS,		/* of those, plain TCP peers */
	PSTRIPE_MIB_HANDSHAKE_FAILS,	/* bad or missing hellos, joins */
	PSTRIPE_MIB_SUBFLOWS_OPENED,	/* data subflows a client opened */
	PSTRIPE_MIB_SUBFLOWS_JOINED,	/* data subflows a server took */
	PSTRIPE_MIB_BLOCKS_SENT,
	PSTRIPE_MIB_BLOCKS_RECEIVED,
	PSTRIPE_MIB_BLOCKS_COPIED,	/* second copies at the stream's tail */
	PSTRIPE_MIB_CLOSE_TIMEOUTS,	/* close() gave up waiting for acks */
	PSTRIPE_MIB_LISTEN_OVERFLOWS,	/* handshakes reset to make room */
	PSTRIPE_MIB_JOINS_MISSING,	/* data subflows set up without */
	PSTRIPE_MIB_RESENDS,		/* blocks of dead subflows sent again */
	PSTRIPE_MIB_SUBFLOWS_LOST_TIMEOUT, /* no progress: ours or TCP's */
	PSTRIPE_MIB_SUBFLOWS_LOST_ERROR, /* reset, or another TCP error */
	PSTRIPE_MIB_SUBFLOWS_REOPENED,	/* dead subflows a rejoin replaced */
	PSTRIPE_MIB_DUPS_DROPPED,	/* copies of blocks we had already */
	PSTRIPE_MIB_JOINS_REFUSED,	/* joins and rejoins a server refused */
	PSTRIPE_MIB_ABORTS,		/* connections we reset */
	PSTRIPE_MIB_MAX
};

struct pstripe_mib {
	unsigned long	v[PSTRIPE_MIB_MAX];
};

/**
 * struct pstripe_pernet - net.psock.* sysctls of one network namespace
 * @sysctl_hdr: the registered table (a per-namespace copy)
 * @enabled: 0 refuses new PSOCK sockets with ENOPROTOOPT
 * @rcmd_stream_cnt: default PSOCK_RCMD_STREAM_CNT
 * @max_stream_cnt: default PSOCK_MAX_STREAM_CNT
 * @driver: default PSOCK_DRIVER
 * @stale_timeout_ms: a subflow without progress this long is dead
 * @hello_timeout_ms: how long each side waits for the other's hello before
 *	treating the connection as plain TCP
 * @add_addr_accepted: announced addresses a client opens subflows to
 * @optimistic: default PSOCK_OPTIMISTIC
 * @mib: counters shown in /proc/net/psock (mib.c)
 * @bg_closes: closed sockets finishing in the background, at most
 *	PSTRIPE_BG_CLOSE_MAX
 * @socks_lock: protects @socks (a leaf spinlock, taken with
 *	spin_lock_bh() under any socket lock; diag.c)
 * @socks: every PSOCK socket of the namespace, from ->init to ->destroy
 *	(&pstripe_sock.all_node), in order of creation: what sock_diag
 *	dumps
 */
struct pstripe_pernet {
	struct ctl_table_header	*sysctl_hdr;
	int			enabled;
	int			rcmd_stream_cnt;
	int			max_stream_cnt;
	int			driver;
	int			stale_timeout_ms;
	int			hello_timeout_ms;
	int			add_addr_accepted;
	int			optimistic;
	struct pstripe_mib __percpu *mib;
	atomic_t		bg_closes;
	spinlock_t		socks_lock;	/* see @socks_lock above */
	struct list_head	socks;
};

/* Closed sockets of one namespace finishing in the background, at most. */
#define PSTRIPE_BG_CLOSE_MAX	1024

/**
 * struct pstripe_addr - an address added with PSOCK_ADD_LOCAL_ADDR
 * @family: 4 or 6
 * @port: network order; 0 for the listener's port
 * @addr: 4 or 16 bytes
 */
struct pstripe_addr {
	u8	family;
	__be16	port;
	u8	addr[16];
};

/* TCP_NOTSENT_LOWAT of every subflow: 8 blocks wait in TCP, no more. */
#define PSTRIPE_SF_NOTSENT	(8 * PSTRIPE_BLK_BUF)

/*
 * At most this many blocks are unacknowledged; a block more than this far
 * from the receiver's next one (either way) is a protocol error.
 */
#define PSTRIPE_WIN_BLKS	1024
/*
 * The bytes (headers and payload) a sender may have unacknowledged: the
 * window its peer offered in its hello (pstripe_win_offer()), in units of
 * PSTRIPE_WIN_UNIT, from PSTRIPE_WIN_BYTES (also what a peer that offers
 * none gets) up to PSTRIPE_WIN_MAX (what PSTRIPE_WIN_BLKS full blocks
 * hold).  A receiver so never needs more than pstripe_rcv_win() for its
 * reorder queue: the window's blocks (payload and struct pstripe_blk)
 * and one block being copied per subflow.  A peer that makes it hold more
 * is broken or hostile.
 */
#define PSTRIPE_WIN_UNIT	(64U << 10)
#define PSTRIPE_WIN_BYTES	(4U << 20)
#define PSTRIPE_WIN_MAX		((PSTRIPE_WIN_BLKS - 1) * PSTRIPE_BLK_BUF / \
				 PSTRIPE_WIN_UNIT * PSTRIPE_WIN_UNIT)
#define PSTRIPE_RCV_OVERHEAD	(PSTRIPE_WIN_BLKS * sizeof(struct pstripe_blk) + \
				 PSOCK_STREAM_CNT_LIMIT * PSTRIPE_BLK_BUF)
#define PSTRIPE_RCV_WIN		(PSTRIPE_WIN_BYTES + PSTRIPE_RCV_OVERHEAD)
/* The receiver acknowledges at least every this many blocks. */
#define PSTRIPE_ACK_EVERY	8
/* ... and what it delivered within this time (as TCP's delayed ACK). */
#define PSTRIPE_ACK_DELAY	(HZ / 25)
/*
 * An allocation that failed (a block taken ahead of its turn, our
 * end-of-stream block, an accepted connection's subflow) is tried again
 * this much later by the work, as TCP probes again after
 * TCP_RESOURCE_PROBE_INTERVAL: never an error of the connection.
 */
#define PSTRIPE_NOMEM_RETRY	(HZ / 10)
/*
 * A client opens a dead subflow's slot again this long after it died,
 * then after twice as long after each try that failed, up to
 * PSTRIPE_REJOIN_MAX (pm.c).
 */
#define PSTRIPE_REJOIN_FIRST	HZ
#define PSTRIPE_REJOIN_MAX	(60 * HZ)

/**
 * struct pstripe_blk - a block kept until the peer acknowledges it (in
 *	&pstripe_sock.rtx), or one received ahead of its turn (in
 *	&pstripe_sock.ooo)
 * @node: list entry, in sequence order
 * @seq: block sequence number
 * @size: bytes of @data: header and payload (rtx), payload (ooo)
 * @sf: rtx: the subflow it was written to, -1 while it waits for one
 * @copy: rtx: the subflow a second copy was written to (pstripe_tail()),
 *	-1 when none
 * @fin: ooo: the end-of-stream block
 * @sent: rtx: given to a subflow once: when it waits for one again (its
 *	subflow died), its next is a resend (Resends)
 * @sf_end: rtx: @sf's TCP write_seq once the block is written to it
 * @data: see @size; an allocation of its own (mem.c)
 */
struct pstripe_blk {
	struct list_head	node;
	u32			seq;
	u32			size;
	s8			sf;
	s8			copy;
	bool			fin;
	bool			sent;
	u32			sf_end;
	u32			alloc;	/* bytes at @data (mem.c) */
	u8			*data;
};

/**
 * struct pstripe_route - where a client's subflow went, so that it can be
 *	opened again once it died (pm.c)
 * @dst: the server's address and port
 * @src: the source address (port 0), used when @bind
 * @alen: bytes of @dst and @src; 0: no route (a server's subflow)
 * @ifindex: the interface it was bound to, 0 for none
 * @bind: bound to @src
 */
struct pstripe_route {
	union {
		struct sockaddr_in	v4;
		struct sockaddr_in6	v6;
	}			dst, src;
	int			alen;
	int			ifindex;
	bool			bind;
};

/**
 * struct pstripe_subflow - one kernel TCP socket owned by a PSOCK socket
 * @sock: the TCP socket
 * @owner: the PSOCK socket woken (and whose work runs) on its events;
 *	changed only under sk_callback_lock
 * @saved_data_ready: callbacks restored on detach
 * @saved_write_space: see @saved_data_ready
 * @saved_state_change: see @saved_data_ready
 * @node: in one of a listener's lists of unclassified connections
 *	(@pend_state says which; protected by the listener's socket lock)
 * @deadline: jiffies when a pending connection stops waiting
 * @since: jiffies when its handshake began (server hello sent)
 * @pend_state: PSTRIPE_PEND_*
 * @deadline_short: @deadline is the one of &pstripe_lstn.partial
 * @quiet_ka: on &pstripe_lstn.quiet, TCP keepalive turned on to find out
 *	whether the client is still there (listener.c)
 * @token: the token sent in the server hello (PSTRIPE_PEND_CHELLO), or
 *	the one a join waiting for its connection names (PSTRIPE_PEND_FIRST)
 * @tnode: in the listener's token hash (same lock as @node)
 * @lstn: the listener state whose @ready list takes this subflow's
 *	events; set and cleared under sk_callback_lock
 * @rnode: in @lstn's @ready list (protected by @lstn's @lock), or, in
 *	the graveyard, in its list of subflows with events (protected by
 *	the graveyard's lock)
 * @index: position in the owner's subflow array
 * @attached: callbacks installed
 * @grave: in the graveyard: its events queue the graveyard's work; set
 *	under sk_callback_lock
 * @join_sent: client: the join (or rejoin) message went out; the subflow
 *	counts once TCP acknowledged it (pstripe_join_acked())
 * @join_wait: client: the work waits for TCP's acknowledgment of the
 *	join: the subflow's write_space events ask TCP for the next call
 *	(SOCK_NOSPACE) until it came; written by the work under the
 *	socket lock, read by the events (READ_ONCE)
 * @join_end: client: TCP's sequence number after the join's last byte,
 *	set before @join_wait; written by the work under the socket lock,
 *	read by the events (READ_ONCE)
 * @est_at: client: jiffies when TCP's handshake completed (the SYN-ACK
 *	came); written once by the state callback, under sk_callback_lock,
 *	read locklessly after @est_seen
 * @est_seen: @est_at is set (smp_store_release() / smp_load_acquire())
 * @fin_sent: our FIN went out (shutdown(SHUT_WR))
 * @last_ack_sent: our last acknowledgment went out on it before its FIN
 *	(pstripe_last_acks())
 * @eof: the peer's FIN was read
 * @hdr_valid: @blk_seq / @blk_rem describe the block being read
 * @hdr_got: bytes of @hdr read so far
 * @hdr: block header being read
 * @blk_seq: sequence number of the block being read
 * @blk_rem: payload bytes of that block still to read
 * @cur: the block being written to TCP (owned by the rtx list)
 * @soff: bytes of @cur written
 * @abuf: an acknowledgment being written
 * @alen: bytes in @abuf, 0 when none
 * @aoff: bytes of @abuf written
 * @busy: @cur or @abuf is not fully written: no new block or ack
 * @dead: the subflow failed and was reset; its socket stays until close()
 * @dup: the block being read was delivered already: it is dropped
 * @blk_fin: the block being read is the end-of-stream block
 * @blk_len: payload length of the block being read
 * @pull: block being copied into the reorder queue
 * @poff: bytes of @pull copied
 * @last_una: TCP snd_una at @progress_at
 * @last_rcv: TCP rcv_nxt at the last stale check
 * @last_ack_ts: TCP rcv_tstamp (the last ACK taken) at the last stale check
 * @progress_at: jiffies when TCP last saw an ack or had nothing to deliver
 *	(at the last stale check)
 * @heard_at: jiffies of the last stale check that saw the peer acknowledge
 *	or send something on this subflow: its path worked then
 * @resumed_at: jiffies of the first such check after a silence of half
 *	a stale timeout or more
 * @acked_at: jiffies of the last stale check that saw TCP snd_una move:
 *	the path worked then for what we send
 * @in_flight: the last stale check saw data not acknowledged (in flight,
 *	or queued while the peer's window has room for a segment)
 * @graced: stuck, given until @grace_end to show that its path is back
 *	(pstripe_sf_forsaken())
 * @grace_end: see @graced
 * @bytes_sent: bytes written to TCP, headers included
 * @bytes_received: bytes read from TCP, headers included
 * @nl_up: announced established on netlink, not yet closed (netlink.c);
 *	under the owner's socket lock (a child's, before accept(): its
 *	listener's)
 * @route: client: where it goes, to open it again once dead (pm.c)
 * @retry_armed: client, dead: @retry_at is set
 * @retry_at: client, dead: when its slot is opened again
 * @retries: client, dead: tries to open its slot again that failed
 * @ports: local and peer TCP ports (network order) noted when it was
 *	established or took a slot: a rejoin names the subflow it replaces
 *	by the client's port (pm.c); a rejoin waiting on &pstripe_sock.rj_q
 *	keeps there the port its message named
 * @opt: server, pending: PSTRIPE_SF_OPT_* (an optimistic client's probe)
 * @opt_seq: server, PSTRIPE_SF_OPT_RAW: TCP sequence number of the first
 *	byte after the probe
 * @opt_blk: server, PSTRIPE_SF_OPT_MARKED: the plain bytes the client sent
 *	before its mark (NULL if none), block 0 of the connection
 * @gnode: server, the control subflow of a handshake of an SO_REUSEPORT
 *	listener: in the handshake table (token.c), under its lock
 * @hs_lps: that listener, while @gnode is hashed
 * @free_rwork: a dead subflow that a rejoin replaced, freed after an RCU
 *	grace period (pstripe_sf_replace())
 */
struct pstripe_subflow {
	struct socket		*sock;
	struct sock		*owner;
	void			(*saved_data_ready)(struct sock *sk);
	void			(*saved_write_space)(struct sock *sk);
	void			(*saved_state_change)(struct sock *sk);
	struct list_head	node;
	unsigned long		deadline;
	unsigned long		since;
	u8			pend_state;
	bool			deadline_short;
	bool			quiet_ka;
	u64			token;
	struct hlist_node	tnode;
	struct pstripe_lstn	*lstn;
	struct list_head	rnode;
	u8			index;
	bool			attached;
	bool			grave;
	bool			join_sent;
	bool			join_wait;
	u32			join_end;
	unsigned long		est_at;
	bool			est_seen;
	bool			fin_sent;
	bool			last_ack_sent;
	bool			eof;
	bool			hdr_valid;
	u8			hdr_got;
	u8			hdr[sizeof(struct pstripe_blkhdr)];
	u32			blk_seq;
	u32			blk_rem;
	struct pstripe_blk	*cur;
	u32			soff;
	u8			abuf[sizeof(struct pstripe_blkhdr)];
	u8			alen;
	u8			aoff;
	bool			busy;
	bool			dead;
	bool			dup;
	bool			blk_fin;
	u32			blk_len;
	struct pstripe_blk	*pull;
	u32			poff;
	u32			last_una;
	u32			last_rcv;
	u32			last_ack_ts;
	unsigned long		progress_at;
	unsigned long		heard_at;
	unsigned long		resumed_at;
	unsigned long		acked_at;
	bool			in_flight;
	bool			graced;
	unsigned long		grace_end;
	u64			bytes_sent;
	u64			bytes_received;
	bool			nl_up;
	struct pstripe_route	route;
	bool			retry_armed;
	unsigned long		retry_at;
	u8			retries;
	__be16			ports[2];
	u8			opt;
	u32			opt_seq;
	struct pstripe_blk	*opt_blk;
	struct hlist_node	gnode;
	struct pstripe_sock	*hs_lps;
	struct rcu_work		free_rwork;
};

/**
 * struct pstripe_sf_opts - options of the PSOCK socket its subflows share
 * @sndbuf: sk_sndbuf, copied when SOCK_SNDBUF_LOCK is set (SO_SNDBUF)
 * @rcvbuf: sk_rcvbuf, copied when SOCK_RCVBUF_LOCK is set (SO_RCVBUF)
 * @mark: sk_mark (SO_MARK)
 * @priority: sk_priority (SO_PRIORITY)
 * @userlocks: the SOCK_SNDBUF_LOCK and SOCK_RCVBUF_LOCK bits
 * @keepalive: SOCK_KEEPOPEN (SO_KEEPALIVE)
 * @tos: inet->tos without its ECN bits (IP_TOS)
 * @tclass: the IPv6 traffic class without its ECN bits (IPV6_TCLASS)
 */
struct pstripe_sf_opts {
	int	sndbuf;
	int	rcvbuf;
	u32	mark;
	u32	priority;
	u8	userlocks;
	u8	keepalive;
	u8	tos;
	u8	tclass;
};

/**
 * struct pstripe_tcp_opts - SOL_TCP options of a PSOCK socket (sockopt.c)
 * @keepidle: TCP_KEEPIDLE of every subflow, seconds; 0: TCP's default
 * @keepintvl: TCP_KEEPINTVL, as @keepidle
 * @keepcnt: TCP_KEEPCNT, as @keepidle
 * @user_timeout: TCP_USER_TIMEOUT of every subflow, milliseconds
 * @defer_accept: TCP_DEFER_ACCEPT, seconds: the TCP listener's (sf[0])
 * @fastopen: TCP_FASTOPEN: kept and read back, applied to no subflow
 * @notsent_lowat: TCP_NOTSENT_LOWAT of the connection (poll(), send());
 *	0: net.ipv4.tcp_notsent_lowat
 * @cork: TCP_CORK of every subflow
 * @ca: TCP_CONGESTION of every subflow; "" for the netns' default
 */
struct pstripe_tcp_opts {
	int	keepidle;
	int	keepintvl;
	int	keepcnt;
	int	user_timeout;
	int	defer_accept;
	int	fastopen;
	u32	notsent_lowat;
	bool	cork;
	char	ca[TCP_CA_NAME_MAX];
};

/**
 * struct pstripe_sock - the socket the application sees (the "msk" in
 *	MPTCP's words); its subflows are kernel TCP sockets it owns
 * @isk: inet socket; must stay first (pstripe_sk() casts)
 * @counted: counted in /proc/net/protocols (->init succeeded)
 * @memcg: memory cgroup its blocks are charged to (mem.c); set by ->init,
 *	put by ->destroy
 * @rcmd_stream_cnt: recommended stream count announced to the peer
 * @max_stream_cnt: maximum stream count announced to the peer
 * @driver: enum psock_driver
 * @sndbuf: SO_SNDBUF of each subflow, 0 for the default
 * @rcvbuf: SO_RCVBUF of each subflow, 0 for the default
 * @work: handshakes, the listener's classification, flushing blocks
 * @kicked: a run of @work is asked for at once (pstripe_kick()); cleared
 *	as a run starts.  Lockless (pstripe_schedule_by())
 * @closing: the socket is torn down; the work does nothing more
 * @bg_close: closed with blocks unacknowledged: orphaned, the work
 *	finishes the connection (counted in the netns' @bg_closes)
 * @close_rst: the subflows are reset at the end, not closed with a FIN
 * @bg_una: @snd_una when @bg_deadline was last set
 * @bg_deadline: an orphan with no acknowledgment until then is reset
 * @phase: client handshake phase (PSTRIPE_PH_*)
 * @fallback: the peer does not speak PSOCK: subflow 0 is a plain stream
 * @snd_fin: shutdown(SHUT_WR) asked; FINs follow the last blocks
 * @snd_pending: a block or a FIN waits for send-buffer space
 * @nsf: entries of @sf in use
 * @stream_cnt: negotiated stream count (0 before)
 * @neg_driver: negotiated driver
 * @sf: subflows; sf[0] is the control subflow (or the TCP listener)
 * @token: this connection's token (server side)
 * @deadline: end of the wait for the server hello (client)
 * @snd_seq: sequence number of the next block to send
 * @rr_next: round-robin: subflow of the next block
 * @ack_next: subflow the next acknowledgment is tried on first
 * @pa_next: poll-all: subflow the next block is tried on first
 * @rcv_seq: sequence number of the next block to deliver
 * @rcv_cur: subflow holding block @rcv_seq, -1 while unknown
 * @rcv_eof: the whole stream was read
 * @rcv_nomem: a block could not be taken ahead of its turn for want of
 *	memory, or the pool was over net.psock.mem: it stays in its
 *	subflow, and recv() and poll() wait for the work to run again
 *	(PSTRIPE_NOMEM_RETRY) before the next try
 * @pending: listener: TCP connections not yet classified, nothing read
 *	from them yet, in order of their deadlines
 * @embryos: listener: connections waiting for their data subflows, in
 *	order of their deadlines (@lnode)
 * @lstn: listener: the state of its handshakes (listener.c)
 * @tnode: child: in its listener's token hash while an embryo
 * @accept_q: listener: connections ready for accept()
 * @accept_len: entries of @accept_q
 * @lnode: child: in its listener's @embryos or @accept_q
 * @csock: child: the struct socket it was created with, until accept()
 * @peer: the peer's address, from the control subflow once established
 *	(getpeername() answers it whatever becomes of that subflow)
 * @peer_len: its length; 0 before
 * @joined: child: data subflows attached
 * @rtx: blocks sent and not yet acknowledged (struct pstripe_blk)
 * @rtx_bytes: bytes in @rtx
 * @rtx_cnt: blocks in @rtx
 * @spare: a block acknowledged, kept for the next one of its kmalloc size
 *	(mem.c)
 * @orphans: blocks of @rtx waiting for a subflow (after a subflow died;
 *	the end-of-stream block)
 * @snd_una: the peer's last acknowledgment: next block it expects
 * @snd_wnd: bytes of blocks we may have unacknowledged: the window the
 *	peer offered in its hello (read by poll())
 * @rcv_wnd: the window we offered in our hello: what the peer may make
 *	the reorder queue hold (pstripe_rcv_win())
 * @fin_queued: the end-of-stream block is in @rtx (or was acknowledged)
 * @fin_nomem: the end-of-stream block could not be allocated: the work
 *	tries again (pstripe_push())
 * @ack_sent: last acknowledgment sent
 * @ack_pending: an acknowledgment waits for a subflow
 * @ack_delayed: an acknowledgment is owed, to go with our next block or
 *	alone at @ack_due (pstripe_ack_delay()), at once when our
 *	end-of-stream block is queued
 * @ack_due: see @ack_delayed
 * @ooo: blocks received ahead of @rcv_seq (struct pstripe_blk); they and
 *	the subflows' @pull blocks are charged to sk_rmem_alloc
 * @ooo_cnt: blocks in @ooo
 * @rcv_off: bytes of block @rcv_seq already delivered
 * @rcv_fin_known: the peer's end-of-stream block was seen ...
 * @rcv_fin_seq: ... with this sequence number
 * @nlive: subflows not dead
 * @laddr: addresses added with PSOCK_ADD_LOCAL_ADDR
 * @nladdr: entries of @laddr in use
 * @nodelay: TCP_NODELAY, set on every subflow
 * @tcp: the other SOL_TCP options (sockopt.c)
 * @synced: socket options as last copied to the subflows (sockopt.c)
 * @late_hello: client: fell back to plain TCP on the hello timeout, with
 *	nothing received yet: a server hello that still comes is consumed,
 *	not handed to the application (poll() reads it)
 * @late_need: bytes a server hello seen in part needs, 0 if none (poll()
 *	reads it)
 * @plain_sent: the application sent bytes after the fallback
 * @optimistic: PSOCK_OPTIMISTIC (handshake.c, "Optimistic connect")
 * @opt: client: PSTRIPE_OPT_WAIT while connected optimistically and
 *	undecided: plain TCP until a server hello comes
 * @opt_over: client: the hello timeout passed while undecided: the
 *	application may send more than PSTRIPE_OPT_MAX plain bytes
 * @opt_switched: client: turned striped after an optimistic start
 * @opt_sent: client: plain bytes sent while undecided
 * @opt_probe: client, undecided: our probe is not out yet; it goes in
 *	front of the application's first bytes, or alone when the
 *	application reads first or at @probe_at (handshake.c)
 * @probe_at: client: when the work sends a probe still due alone
 * @conn_waiting: client: an optimistic connect() waits to take the step
 *	after TCP's handshake itself: subflow events only wake it
 * @rcv_waiting: client: a reader sleeps with @late_hello set: it reads
 *	a late hello itself, the data events only wake it
 * @rj_sf: client: a subflow connecting to take the place of dead subflow
 *	@rj_slot (pm.c), not in @sf yet, until its rejoin is acknowledged;
 *	read locklessly by the subflows' events (an ack then runs the work)
 * @rj_slot: see @rj_sf
 * @rj_deadline: when @rj_sf is given up if not connected
 * @rj_lock: server: protects @rj_q and @rj_closed (a leaf spinlock,
 *	taken by a listener's work and by this socket's)
 * @rj_q: server: subflows that rejoined, waiting for the work to take
 *	them into @sf (by &pstripe_subflow.node)
 * @rj_len: server: entries of @rj_q, at most PSOCK_STREAM_CNT_LIMIT
 * @rj_closed: server: torn down; nothing is queued on @rj_q any more
 * @stale_kill_at: when the stale check last declared a subflow dead
 *	(0: never); see @rj_limbo
 * @rj_limbo: no subflow left, the last ones reset by the peer soon after
 *	we declared one of ours dead (pm.c, "crossing verdicts"): the
 *	connection waits for a rejoin until @rj_limbo_end instead of
 *	failing (read by poll() and the wait conditions)
 * @rj_limbo_end: see @rj_limbo
 * @tok_node: server: in the token table while established (token.c)
 * @all_node: in its namespace's &pstripe_pernet.socks while ->init has
 *	succeeded and ->destroy not run (protected by its @socks_lock)
 *
 * Everything else is protected by lock_sock(); poll() reads some fields
 * with READ_ONCE, and the entries of @sf under rcu_read_lock() (a dead
 * subflow replaced in @sf is freed after a grace period).
 */
struct pstripe_sock {
	struct inet_sock	isk;
	bool			counted;
	struct mem_cgroup	*memcg;
	int			rcmd_stream_cnt;
	int			max_stream_cnt;
	int			driver;
	int			sndbuf[PSOCK_STREAM_CNT_LIMIT];
	int			rcvbuf[PSOCK_STREAM_CNT_LIMIT];
	struct delayed_work	work;
	bool			kicked;
	bool			closing;
	bool			bg_close;
	bool			close_rst;
	u32			bg_una;
	unsigned long		bg_deadline;
	u8			phase;
	bool			fallback;
	bool			snd_fin;
	bool			snd_pending;
	int			nsf;
	int			stream_cnt;
	int			neg_driver;
	struct pstripe_subflow	*sf[PSOCK_STREAM_CNT_LIMIT];
	u64			token;
	unsigned long		deadline;
	u32			snd_seq;
	int			rr_next;
	int			ack_next;
	int			pa_next;
	u32			rcv_seq;
	int			rcv_cur;
	bool			rcv_eof;
	bool			rcv_nomem;
	struct list_head	pending;
	struct list_head	embryos;
	struct pstripe_lstn	*lstn;
	struct hlist_node	tnode;
	struct list_head	accept_q;
	int			accept_len;
	struct list_head	lnode;
	struct socket		*csock;
	union {
		struct sockaddr_in	v4;
		struct sockaddr_in6	v6;
	}			peer;
	int			peer_len;
	int			joined;
	struct list_head	rtx;
	u32			rtx_bytes;
	u32			rtx_cnt;
	struct pstripe_blk	*spare;
	int			orphans;
	u32			snd_una;
	u32			snd_wnd;
	u32			rcv_wnd;
	bool			fin_queued;
	bool			fin_nomem;
	u32			ack_sent;
	bool			ack_pending;
	bool			ack_delayed;
	unsigned long		ack_due;
	struct list_head	ooo;
	u32			ooo_cnt;
	u32			rcv_off;
	bool			rcv_fin_known;
	u32			rcv_fin_seq;
	int			nlive;
	struct pstripe_addr	laddr[PSOCK_ADDR_MAX];
	int			nladdr;
	bool			nodelay;
	struct pstripe_tcp_opts	tcp;
	struct pstripe_sf_opts	synced;
	bool			late_hello;
	u32			late_need;
	bool			plain_sent;
	bool			optimistic;
	u8			opt;
	bool			opt_over;
	bool			opt_switched;
	u32			opt_sent;
	bool			opt_probe;
	unsigned long		probe_at;
	bool			conn_waiting;
	bool			rcv_waiting;
	struct pstripe_subflow	*rj_sf;
	u8			rj_slot;
	unsigned long		rj_deadline;
	spinlock_t		rj_lock;	/* see @rj_lock above */
	struct list_head	rj_q;
	int			rj_len;
	bool			rj_closed;
	unsigned long		stale_kill_at;
	bool			rj_limbo;
	unsigned long		rj_limbo_end;
	struct hlist_node	tok_node;
	struct list_head	all_node;
};

/**
 * struct pstripe6_sock - IPv6 flavour of struct pstripe_sock
 * @ps: the common part
 * @np: IPv6 state; must be the last member (6.1's inet6_sk_generic()
 *	finds it at obj_size - sizeof(struct ipv6_pinfo))
 */
struct pstripe6_sock {
	struct pstripe_sock	ps;
	struct ipv6_pinfo	np;
};

static inline struct pstripe_sock *pstripe_sk(const struct sock *sk)
{
	return (struct pstripe_sock *)sk;
}

/* Client handshake phases (state TCP_SYN_SENT). */
enum {
	PSTRIPE_PH_TCP,		/* control subflow connecting */
	PSTRIPE_PH_SHELLO,	/* probe sent, waiting for the server hello */
	PSTRIPE_PH_JOIN,	/* data subflows connecting */
};

/* What a listener knows of an accepted TCP connection. */
enum {
	PSTRIPE_PEND_NONE,	/* not in a listener's lists */
	PSTRIPE_PEND_FIRST,	/* nothing yet: probe, join or plain data? */
	PSTRIPE_PEND_BLOCKED,	/* probed; no room for one more handshake */
	PSTRIPE_PEND_CHELLO,	/* server hello sent, waiting for the client's */
};

#define PSTRIPE_TOK_BITS	8

/**
 * struct pstripe_lstn - a listener's connections in their handshake
 * @lock: protects @ready (spin_lock_bh(); taken in the subflows'
 *	callbacks under their sk_callback_lock)
 * @ready: subflows with an event since the work last looked (@rnode)
 * @blocked: PSTRIPE_PEND_BLOCKED subflows, in order of their deadlines
 * @chello: PSTRIPE_PEND_CHELLO subflows, in order of their deadlines
 * @quiet: PSTRIPE_PEND_CHELLO subflows past their deadline whose client's
 *	TCP acknowledged the server hello: alive, waited for (listener.c)
 * @partial: PSTRIPE_PEND_CHELLO subflows that sent part of their client
 *	hello, in order of their (shorter) deadlines
 * @npend: subflows of &pstripe_sock.pending and @blocked
 * @nhs: handshakes: subflows of @chello, @quiet and @partial, and embryos
 * @key: keys the token hash, so that a peer cannot choose a bucket
 * @tok_sf: subflows by @token: PSTRIPE_PEND_CHELLO, and joins waiting
 *	for their connection
 * @tok_child: embryos by &pstripe_sock.token
 * @embryo_end: when the last embryo went to accept() without every join
 * @foreign: joins another listener of our SO_REUSEPORT group took for
 *	one of our handshakes (token.c), protected by the token table's
 *	lock: the work takes them into &pstripe_sock.pending
 *
 * Everything but @ready is protected by the listener's socket lock.
 */
struct pstripe_lstn {
	spinlock_t		lock;	/* see @lock above */
	struct list_head	ready;
	struct list_head	blocked;
	struct list_head	chello;
	struct list_head	quiet;
	struct list_head	partial;
	int			npend;
	int			nhs;
	siphash_key_t		key;
	struct hlist_head	tok_sf[1 << PSTRIPE_TOK_BITS];
	struct hlist_head	tok_child[1 << PSTRIPE_TOK_BITS];
	unsigned long		embryo_end;
	struct list_head	foreign;
};

/* pstripe_sock.rcv_cur: block rcv_seq is at the head of the reorder queue */
#define PSTRIPE_CUR_OOO		PSOCK_STREAM_CNT_LIMIT

/*
 * Optimistic connect (handshake.c): the plain bytes a client sends before
 * it knows whether the server speaks PSOCK, at most; they become the
 * server's block 0.  pstripe_sock.opt and pstripe_subflow.opt:
 */
#define PSTRIPE_OPT_MAX		PSOCK_OPTIMISTIC_MAX
#define PSTRIPE_OPT_WAIT	1	/* client: undecided */
#define PSTRIPE_SF_OPT_RAW	1	/* server: plain bytes, mark not seen */
#define PSTRIPE_SF_OPT_MARKED	2	/* server: mark read, @opt_blk kept */
/*
 * An optimistic client's probe waits this long at most (and a quarter of
 * the hello timeout) for the application's first bytes to ride with.
 */
#define PSTRIPE_PROBE_DELAY	msecs_to_jiffies(20)

/* Re-check of pending handshakes while nothing else wakes the work. */
#define PSTRIPE_POLL_JIFFIES	(HZ / 20)
/*
 * A listener keeps at most max(backlog, PSTRIPE_HS_MIN) connections in
 * their handshake; to make room for a new one, the one waiting longest is
 * reset once it has had PSTRIPE_HS_GRACE to finish.  TCP connections not
 * classified yet: at most PSTRIPE_LISTEN_MULT * min(backlog, 256), and as
 * many in the TCP listener's queue.
 */
#define PSTRIPE_HS_MIN		256
#define PSTRIPE_HS_GRACE	(HZ / 5)
/* Keepalive probes a quiet client may leave unanswered (listener.c). */
#define PSTRIPE_QUIET_PROBES	2
#define PSTRIPE_LISTEN_MULT	PSOCK_STREAM_CNT_LIMIT
/* Pending subflows one run of a listener's work steps at most. */
#define PSTRIPE_LISTEN_BUDGET	256

/* Things a work run releases once it has dropped the socket lock. */
struct pstripe_reap {
	struct list_head	subflows;	/* struct pstripe_subflow.node */
	struct list_head	children;	/* struct pstripe_sock.lnode */
};

static inline struct sock *ps_sk(struct pstripe_sock *ps)
{
	return &ps->isk.sk;
}

/* An optimistic connection turning striped: connected, subflows joining. */
static inline bool pstripe_switching(struct pstripe_sock *ps)
{
	return ps->opt_switched && ps_sk(ps)->sk_state == TCP_SYN_SENT;
}

/*
 * Every subflow dead and no rejoin awaited (pstripe_limbo_enter()): the
 * connection failed.  Lockless: poll() and the wait conditions.
 */
static inline bool pstripe_failed(const struct pstripe_sock *ps)
{
	return !READ_ONCE(ps->nlive) && !READ_ONCE(ps->rj_limbo);
}

/* ctrl.c */
struct pstripe_pernet *pstripe_get_pernet(const struct net *net);
int pstripe_ctrl_init(void);
void pstripe_ctrl_exit(void);

static inline void pstripe_mib_inc(const struct net *net, int field)
{
	this_cpu_inc(pstripe_get_pernet(net)->mib->v[field]);
}

static inline void pstripe_mib_add(const struct net *net, int field,
				   unsigned long n)
{
	this_cpu_add(pstripe_get_pernet(net)->mib->v[field], n);
}

/* mib.c */
int pstripe_proc_init_net(struct net *net);
void pstripe_proc_exit_net(struct net *net);
void pstripe_mib_sum(const struct net *net, unsigned long sum[PSTRIPE_MIB_MAX]);

/* netlink.c */
int pstripe_netlink_init(void);
void pstripe_netlink_exit(void);
int pstripe_local_addrs(struct pstripe_sock *ps, struct pstripe_subflow *sf,
			u32 flag, struct pstripe_addr *out, int *ifindex);
int pstripe_nl_endpoints(struct net *net, int family, u32 flag,
			 struct pstripe_addr *out, int *ifindex);
void pstripe_nl_sf_established(struct pstripe_subflow *sf);
void pstripe_nl_sf_closed(struct pstripe_subflow *sf, int err);

/* protocol.c */
extern const struct proto_ops pstripe_stream_ops;
#if IS_ENABLED(CONFIG_IPV6)
extern const struct proto_ops pstripe6_stream_ops;
#endif
void pstripe_sock_init(struct pstripe_sock *ps);
void pstripe_close(struct sock *sk, long timeout);
int pstripe_stream_init(void);
void pstripe_stream_exit(void);
extern struct workqueue_struct *pstripe_wq;
void pstripe_set_state(struct sock *sk, int state);
unsigned long pstripe_hello_jiffies(const struct sock *sk);
unsigned long pstripe_join_jiffies(const struct sock *sk);
unsigned long pstripe_join_wait_jiffies(const struct sock *sk);
unsigned long pstripe_chello_jiffies(const struct sock *sk);
void pstripe_wake(struct sock *sk);
void pstripe_schedule(struct pstripe_sock *ps, unsigned long delay);
void pstripe_kick(struct pstripe_sock *ps);
void pstripe_schedule_by(struct pstripe_sock *ps, unsigned long delay);
unsigned long pstripe_stale_jiffies(const struct sock *sk);

/* subflow.c */
void pstripe_sf_set_owner(struct pstripe_subflow *sf, struct sock *owner);
void pstripe_sf_listen(struct pstripe_subflow *sf, struct pstripe_lstn *lstn);
void pstripe_sf_detach(struct pstripe_subflow *sf);
struct pstripe_subflow *pstripe_sf_create(struct sock *sk, int index,
					  int *errp);
struct pstripe_subflow *pstripe_sf_wrap(struct socket *sock,
					struct sock *owner);
void pstripe_sf_index_bufs(struct pstripe_sock *ps,
			   struct pstripe_subflow *sf);
void pstripe_sf_free(struct pstripe_subflow *sf);
void pstripe_sf_retire(struct pstripe_sock *ps, int i);
void pstripe_sf_note_ports(struct pstripe_subflow *sf);
void pstripe_sf_show_owner(struct sock *sk, struct pstripe_subflow *sf);
int pstripe_sf_sendv(struct pstripe_subflow *sf, struct kvec *iov, int n,
		     size_t len, int flags);
int pstripe_sf_send(struct pstripe_subflow *sf, const void *buf,
		    size_t len, int flags);
int pstripe_sf_recv(struct pstripe_subflow *sf, void *buf, size_t len,
		    int flags);
int pstripe_sf_state(const struct pstripe_subflow *sf);
bool pstripe_sf_readable(const struct pstripe_subflow *sf);
bool pstripe_sf_readable_data(const struct pstripe_subflow *sf);
bool pstripe_sf_live(const struct pstripe_subflow *sf);
void pstripe_sf_kill(struct pstripe_sock *ps, int i, int err);
void pstripe_sf_reset(struct pstripe_sock *ps, int i, int err);
void pstripe_fail(struct pstripe_sock *ps, int err);
void pstripe_abort(struct pstripe_sock *ps, int err);
void pstripe_release_subflows(struct pstripe_sock *ps);
void pstripe_sf_replace(struct pstripe_sock *ps, int i,
			struct pstripe_subflow *sf);
void pstripe_check_subflows(struct pstripe_sock *ps);
void pstripe_grave_add(struct pstripe_subflow *sf);
void pstripe_grave_flush(void);

/* sched.c */
bool pstripe_sf_usable(struct pstripe_subflow *sf, size_t payload,
		       bool mark);
int pstripe_pick(struct pstripe_sock *ps, size_t payload, bool any);
int pstripe_pick_ack(struct pstripe_sock *ps);
void pstripe_rr_advance(struct pstripe_sock *ps, int i);
struct pstripe_blk *pstripe_tail_pick(struct pstripe_sock *ps, int j);

/* output.c */
bool pstripe_rtx_room(struct pstripe_sock *ps, size_t payload);
int pstripe_got_ack(struct pstripe_sock *ps, u32 ack);
void pstripe_push_all(struct pstripe_sock *ps);
void pstripe_queue_fin(struct pstripe_sock *ps);
void pstripe_sf_probe(struct pstripe_sock *ps, int i);
bool pstripe_last_acks(struct pstripe_sock *ps);
bool pstripe_acks_urgent(struct pstripe_sock *ps);
bool pstripe_opt_may_send(const struct pstripe_sock *ps);
void pstripe_free_blocks(struct pstripe_sock *ps);
int pstripe_send_block(struct pstripe_sock *ps, struct msghdr *msg);
int pstripe_send_plain(struct pstripe_sock *ps, struct msghdr *msg);
void pstripe_ack_now(struct pstripe_sock *ps);
void pstripe_ack_delay(struct pstripe_sock *ps);
void pstripe_flush_final(struct pstripe_sock *ps);

/* input.c */
/* The reorder queue's bound: what the window we offered lets a peer send. */
static inline u32 pstripe_rcv_win(const struct pstripe_sock *ps)
{
	return ps->rcv_wnd + PSTRIPE_RCV_OVERHEAD;
}

/*
 * What a socket may hold ahead of the reader's turn whatever the pool of
 * every PSOCK socket's blocks holds (mem.c, net.psock.mem): 16 blocks.
 */
#define PSTRIPE_RCV_SHARE	(256 * 1024)

/* mem.c */
int pstripe_mem_init(void);
void pstripe_mem_exit(void);
void pstripe_memcg_init(struct pstripe_sock *ps);
void pstripe_memcg_put(struct pstripe_sock *ps);
struct mem_cgroup *pstripe_memcg_begin(const struct pstripe_sock *ps);
void pstripe_memcg_end(struct mem_cgroup *old);
struct pstripe_blk *pstripe_blk_alloc(struct pstripe_sock *ps, u32 size);
void pstripe_blk_free(struct pstripe_blk *blk);
void pstripe_blk_recycle(struct pstripe_sock *ps, struct pstripe_blk *blk);
bool pstripe_mem_ahead_ok(struct pstripe_sock *ps, u32 size);
void pstripe_mem_show(struct seq_file *seq);

struct pstripe_blk *pstripe_rblk_alloc(struct pstripe_sock *ps,
				       u32 len);
void pstripe_rblk_free(struct pstripe_sock *ps, struct pstripe_blk *blk);
void pstripe_sf_drop_pull(struct pstripe_sock *ps,
			  struct pstripe_subflow *sf);
bool pstripe_rcv_lowat_met(struct pstripe_sock *ps);
bool pstripe_rcv_ready(struct pstripe_sock *ps);
bool pstripe_rcv_data(struct pstripe_sock *ps);
bool pstripe_peer_fin(struct pstripe_sock *ps);
int pstripe_sf_clear(struct pstripe_sock *ps, int i);
int pstripe_recv_step(struct pstripe_sock *ps, struct msghdr *msg,
		      int flags);
bool pstripe_unread(struct pstripe_sock *ps);
int pstripe_inq(struct pstripe_sock *ps);

/* handshake.c */
bool pstripe_hello_prefix(const u8 *buf, int len, int type);
void pstripe_established(struct pstripe_sock *ps);
bool pstripe_join_acked(const struct pstripe_subflow *sf);
/* What pstripe_join_progress() says of a join or rejoin. */
enum {
	PSTRIPE_JOIN_DONE,
	PSTRIPE_JOIN_WAIT,
	PSTRIPE_JOIN_FAILED,
};

void pstripe_join_fill(struct pstripe_sock *ps, struct pstripe_hello *h,
		       int type, int slot);
int pstripe_join_progress(struct pstripe_subflow *sf,
			  const struct pstripe_hello *h,
			  unsigned long deadline, unsigned long *by);
void pstripe_sf_compact(struct pstripe_sock *ps);
int pstripe_late_hello(struct pstripe_sock *ps);
void pstripe_opt_plain(struct pstripe_sock *ps, const char *why);
void pstripe_opt_probe(struct pstripe_sock *ps);
int pstripe_opt_send_first(struct pstripe_sock *ps, struct msghdr *msg);
void pstripe_opt_probed(struct pstripe_subflow *sf);
int pstripe_opt_mark(struct pstripe_sock *lps, struct pstripe_subflow *sf);
void pstripe_opt_adopt(struct pstripe_sock *child, struct pstripe_subflow *sf);
bool pstripe_late_ready(const struct pstripe_sock *ps);
void pstripe_connect_work(struct pstripe_sock *ps);
int pstripe_send_server_hello(struct pstripe_sock *lps,
			      struct pstripe_subflow *sf);
void pstripe_pending_chello(struct pstripe_sock *lps,
			    struct pstripe_subflow *sf,
			    struct pstripe_reap *reap);

/* pm.c */
int pstripe_open_data_subflows(struct pstripe_sock *ps,
			       const struct pstripe_hello *msgs);
bool pstripe_addr_msg_sane(struct pstripe_sock *ps,
			   const struct pstripe_hello *m, int index);
void pstripe_route_control(struct pstripe_sock *ps);
void pstripe_pm_work(struct pstripe_sock *ps);
void pstripe_pm_stop(struct pstripe_sock *ps);
bool pstripe_limbo_enter(struct pstripe_sock *ps, int err);
void pstripe_limbo_check(struct pstripe_sock *ps);
bool pstripe_rejoin_queue(struct pstripe_sock *ps,
			  struct pstripe_subflow *sf);
void pstripe_rejoin_take(struct pstripe_sock *ps);

/* token.c */
void pstripe_token_add(struct pstripe_sock *ps);
void pstripe_token_del(struct pstripe_sock *ps);
void pstripe_hs_add(struct pstripe_sock *lps, struct pstripe_subflow *sf);
void pstripe_hs_del(struct pstripe_subflow *sf);
bool pstripe_hs_handoff(struct pstripe_sock *lps, struct pstripe_subflow *sf,
			u64 token);
void pstripe_hs_take(struct pstripe_sock *lps, struct list_head *list);
void pstripe_hs_close(struct pstripe_sock *lps, struct list_head *list);
struct pstripe_sock *pstripe_token_get(const struct net *net, u64 token,
				       int family);

/* listener.c */
void pstripe_child_ready(struct pstripe_sock *lps,
			 struct pstripe_sock *child);
struct pstripe_sock *pstripe_child_adopt(struct pstripe_sock *lps,
					 struct pstripe_subflow *sf);
void pstripe_pending_plain(struct pstripe_sock *lps,
			   struct pstripe_subflow *sf,
			   struct pstripe_reap *reap, const char *why);
void pstripe_fallback_dbg(const struct pstripe_subflow *sf, const char *who,
			  const char *why);
void pstripe_listen_work(struct pstripe_sock *lps,
			 struct pstripe_reap *reap);
int pstripe_listen_backlog(int backlog);
void pstripe_listen_accepted(struct pstripe_sock *lps);
int pstripe_lstn_init(struct pstripe_sock *lps);
void pstripe_lstn_free(struct pstripe_sock *lps);
void pstripe_listen_drain(struct pstripe_sock *lps,
			  struct pstripe_reap *reap);
void pstripe_embryo_add(struct pstripe_sock *lps, struct pstripe_sock *child);
void pstripe_pend_reap(struct pstripe_sock *lps, struct pstripe_subflow *sf,
		       struct pstripe_reap *reap);
void pstripe_lstn_ready(struct pstripe_subflow *sf);

/* diag.c */
void pstripe_diag_link(struct pstripe_sock *ps);
void pstripe_diag_unlink(struct pstripe_sock *ps);
int pstripe_diag_init(void);
void pstripe_diag_exit(void);

/* sockopt.c */
int pstripe_setsockopt_psock(struct sock *sk, int optname, sockptr_t optval,
			     unsigned int optlen);
int pstripe_getsockopt_psock(struct sock *sk, int optname,
			     char __user *optval, int __user *optlen);
int pstripe_setsockopt_tcp(struct sock *sk, int optname, sockptr_t optval,
			   unsigned int optlen);
int pstripe_getsockopt_tcp(struct sock *sk, int optname,
			   char __user *optval, int __user *optlen);
void pstripe_sf_inherit(struct sock *sk, struct sock *ssk, int index);
void pstripe_sync_opts(struct sock *sk);
void pstripe_opts_snapshot(const struct sock *sk, struct pstripe_sf_opts *o);
int pstripe_get_info(struct sock *sk, char __user *optval,
		     int __user *optlen, int len);
void pstripe_info_head(struct sock *sk, struct psock_info *info);
void pstripe_sf_info(struct sock *sk, struct pstripe_subflow *sf,
		     struct psock_subflow_info *si);
int pstripe_setsockopt_ip(struct sock *sk, int level, int optname,
			  sockptr_t optval, unsigned int optlen);
int pstripe_getsockopt_ip(struct sock *sk, int level, int optname,
			  char __user *optval, int __user *optlen);
void pstripe_sf_tcp_opts(struct pstripe_sock *ps, struct sock *ssk, int index);
u32 pstripe_notsent(struct pstripe_sock *ps);
bool pstripe_notsent_ok(struct pstripe_sock *ps, int wake);
void pstripe_keepalive(struct sock *sk, int val);
int pstripe_queue_len(struct pstripe_sock *ps, unsigned int cmd);
int pstripe_ioctl_q(struct sock *sk, unsigned int cmd, int *answ);

#endif /* _NET_PSOCK_PROTOCOL_H */
