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
int do_hicn(int argc, char **argv);

#endif /* HICNCTL_H */
