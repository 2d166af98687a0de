/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hicnctl: the configuration tool of hicn.ko and psock.ko, in iproute2's
 * style (object, then verb).  hicnctl.c holds the options, the netlink
 * session and the printer; each object family has its own file.
 */
#ifndef HICNCTL_H
#define HICNCTL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdnoreturn.h>
#include <netinet/in.h>
#include <linux/types.h>

/* Exit statuses, as ip(8) uses them. */
#define EXIT_USAGE	1	/* bad command line, no such namespace, ... */
#define EXIT_KERNEL	2	/* the kernel refused the request */

extern bool json;	/* -j */
extern bool pretty;	/* -p: JSON, indented */
extern bool show_stats;	/* -s: the collectors' counters in cs and pit */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Prints "Error: ..." on stderr and exits with EXIT_USAGE. */
noreturn void usage_error(const char *fmt, ...);
bool matches(const char *arg, const char *word);

/*
 * Command-line helpers; each exits with a usage error naming @what when
 * the argument is missing or bad.
 */
char *next_arg(int *argc, char ***argv, const char *what);
unsigned long get_number(const char *arg, const char *what);	/* u32 */
__u64 get_u64(const char *arg, const char *what);

/*
 * Requests go through libhcn.  need_family() exits when @family is not
 * registered; kernel_error() prints a failed call's errno with the
 * kernel's extack message ("Error: <message>: <strerror>.") and returns
 * it (0 for a success, or a count); monitor_error() prints why a monitor
 * ended and returns EXIT_KERNEL.
 */
void need_family(const char *family);
int kernel_error(int err);
int monitor_error(const char *family, int err);
/*
 * Whether a monitor's @err is -ENOBUFS, events of @family lost to an
 * overrun of its socket's receive buffer: then a warning is printed on
 * stderr, and the monitor should go on.
 */
bool events_lost(const char *family, int err);

/*
 * The printer: text, or JSON with -j.  Keys are ignored in text mode; a
 * text format of print_uint() takes an unsigned long long.
 */
void print_open_array(const char *key);	/* key NULL: an element */
void print_close_array(void);
void print_open_object(const char *key);
void print_close_object(void);
void print_string(const char *key, const char *fmt, const char *val);
void print_uint(const char *key, const char *fmt, __u64 val);
void print_flag(const char *word);	/* element of an open array */
void print_nl(void);
void print_reset(void);	/* the next output starts a new JSON document */

/* A notification: "[name] ..." on one line, or one JSON document. */
void event_open(const char *name);
void event_close(void);

/*
 * Each object's grammar: its command lines, NULL, then its definitions
 * (PREFIX := ...), NULL.  print_grammar() prints the command lines, the
 * first after @lead and the others indented as under "Usage: " (none when
 * @lead is NULL), then the definitions when @defs.
 */
extern const char *const hicn_grammar[];
extern const char *const psock_grammar[];
void print_grammar(FILE *f, const char *const *grammar, const char *lead,
		   bool defs);

int do_psock(int argc, char **argv);
/* hicnctl psock show: the sockets, through sock_diag (psock_diag.c). */
int psock_show(int argc, char **argv);
int do_hicn(int argc, char **argv);
/* Whether @arg is (a prefix of) one of hicn's objects. */
bool hicn_object(const char *arg);
/* hicnctl monitor: the events of both families (monitor.c). */
int do_monitor(int argc, char **argv);
/*
 * Print each family's events as they happen, until one cannot be read:
 * libhcn's error (-EPROTONOSUPPORT when the family is not registered);
 * events lost to an overrun (-ENOBUFS) are reported and they go on.
 */
int hicn_events(void);
int psock_events(void);

/* ---- the hicn object: hicn.c's helpers, shared with hicn_fwd.c ---- */

/* "unknown word" for the hicn object. */
#define HICN_UNKNOWN	"\"%s\" is unknown, try \"hicnctl hicn help\""

/* A prefix of the command line. */
struct hicn_prefix {
	bool		set;
	struct in6_addr	addr;
	unsigned int	len;
};

void hicn_usage(void);	/* the hicn grammar, on stderr */
/*
 * Parses "ADDRESS/LENGTH" into @p (a usage error if it is not one); a
 * length up to 255 is sent as it is, for the kernel to judge.
 */
void get_prefix(struct hicn_prefix *p, const char *arg);
/* An address (when @has_addr) and its length (when @len >= 0). */
void print_prefix(const char *key, const char *fmt, bool has_addr,
		  const struct in6_addr *a, int len);
/* Prints @val when attribute @a is in the mask @attrs. */
void print_attr(__u32 attrs, int a, const char *key, const char *fmt,
		__u64 val);
/* Ends a one-object reply or a list (a newline after JSON): exit status. */
int end_json(int err);

/* hicn_fwd.c: listeners, faces, routes and strategies. */
int do_listener(int argc, char **argv);
int do_face(int argc, char **argv);
int do_route(int argc, char **argv);
int do_strategy(int argc, char **argv);
/*
 * A face's attributes, the id first with @fmt (and its counters with -s);
 * a route event's prefix and next hop.
 */
struct hcn_face;
struct hcn_route_event;
void face_fields(const struct hcn_face *f, const char *fmt);
void route_event_fields(const struct hcn_route_event *re);

#endif /* HICNCTL_H */
