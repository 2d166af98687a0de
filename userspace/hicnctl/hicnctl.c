// SPDX-License-Identifier: GPL-2.0
/*
 * hicnctl: options, dispatch to the objects, libhcn's errors and the one
 * printer behind text, -j and -p output.  Every request goes through
 * libhcn's configuration functions (hcn_cs_get(), ...).
 *
 * Exit status: 0 on success, 1 (EXIT_USAGE) for a bad command line or a
 * namespace that cannot be entered, 2 (EXIT_KERNEL) when the kernel
 * refuses a request: its errno and extack message are printed as
 * "Error: <message>: <strerror>".
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hcn.h>

#include "hicnctl.h"

bool json;
bool pretty;
bool show_stats;

void print_grammar(FILE *f, const char *const *grammar, const char *lead,
		   bool defs)
{
	for (; *grammar; grammar++, lead = lead ? "       " : NULL)
		if (lead)
			fprintf(f, "%s%s\n", lead, *grammar);
	for (grammar++; defs && *grammar; grammar++)
		fprintf(f, "%s\n", *grammar);
}

static void print_usage(FILE *f)
{
	fprintf(f, "Usage: hicnctl [ OPTIONS ] OBJECT { COMMAND | help }\n"
		   "       hicnctl [ OPTIONS ] monitor\n");
	print_grammar(f, hicn_grammar, "       ", false);
	print_grammar(f, psock_grammar, "       ", false);
	fprintf(f,
		"OBJECT := { hicn | psock | HICN-OBJECT }\n"
		"HICN-OBJECT := { namespace | cs | pit | limits | stats | listener |\n"
		"                 face | route | strategy }\n"
		"hicnctl HICN-OBJECT ... is short for hicnctl hicn HICN-OBJECT ...;\n"
		"    psock's objects (its limits and stats too) need \"psock\".\n"
		"hicnctl monitor prints the events of both: hicn's and psock's.\n");
	print_grammar(f, hicn_grammar, NULL, true);
	print_grammar(f, psock_grammar, NULL, true);
	fprintf(f,
		"OPTIONS := { -j[son] | -p[retty] | -s[tatistics] | -n[etns] NAME |\n"
		"            -h[elp] | -V[ersion] }\n"
		"Exit status: 0 success, 1 usage error, 2 the kernel refused.\n");
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("Error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(".\n", stderr);
	exit(EXIT_USAGE);
}

/* @arg is a non-empty prefix of @word, as ip's matches() (0 == match). */
bool matches(const char *arg, const char *word)
{
	size_t n = strlen(arg);

	return n && n <= strlen(word) && !strncmp(arg, word, n);
}

/* The next argument, or a usage error naming what needed it. */
char *next_arg(int *argc, char ***argv, const char *what)
{
	if (*argc < 2)
		usage_error("\"%s\" needs an argument", what);
	(*argc)--;
	(*argv)++;
	return **argv;
}

__u64 get_u64(const char *arg, const char *what)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || !*arg || *end || arg[0] == '-')
		usage_error("\"%s\" is not a valid %s", arg, what);
	return v;
}

unsigned long get_number(const char *arg, const char *what)
{
	__u64 v = get_u64(arg, what);

	if (v > 0xffffffffULL)
		usage_error("\"%s\" is not a valid %s", arg, what);
	return v;
}

/* ---- the printer ---- */

/* Whether the next JSON member needs a comma, per nesting level. */
static bool json_sep[16];
static int json_depth;

/* -p: a new line, indented two spaces a level. */
static void json_indent(int depth)
{
	if (pretty && json_depth > 0)
		printf("\n%*s", 2 * depth, "");
}

static void json_comma(void)
{
	if (json_sep[json_depth])
		putchar(',');
	json_sep[json_depth] = true;
	json_indent(json_depth);
}

static void json_key(const char *key)
{
	json_comma();
	if (key)
		printf(pretty ? "\"%s\": " : "\"%s\":", key);
}

/* Closes the open array or object with @c. */
static void json_close(char c)
{
	if (json_sep[json_depth])
		json_indent(json_depth - 1);
	putchar(c);
	json_depth--;
}

static void json_open(const char *key, char c)
{
	json_key(key);
	putchar(c);
	json_sep[++json_depth] = false;
}

void print_open_array(const char *key)
{
	if (json)
		json_open(key, '[');
}

void print_close_array(void)
{
	if (json)
		json_close(']');
}

void print_open_object(const char *key)
{
	if (json)
		json_open(key, '{');
}

void print_close_object(void)
{
	if (json)
		json_close('}');
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* Text: @fmt with @val; JSON: "key":"val". */
void print_string(const char *key, const char *fmt, const char *val)
{
	if (json) {
		json_key(key);
		json_string(val);
	} else {
		printf(fmt, val);
	}
}

void print_uint(const char *key, const char *fmt, __u64 val)
{
	if (json) {
		json_key(key);
		printf("%llu", (unsigned long long)val);
	} else {
		printf(fmt, (unsigned long long)val);
	}
}

void print_flag(const char *word)
{
	if (json) {
		json_key(NULL);
		json_string(word);
	} else {
		printf(" %s", word);
	}
}

void print_reset(void)
{
	json_depth = 0;
	json_sep[0] = false;
}

void print_nl(void)
{
	if (!json)
		putchar('\n');
}

/* ---- requests through libhcn ---- */

/*
 * The family of an object, before its command line is read: without it
 * (the module is not loaded) hicnctl stops.
 */
void need_family(const char *family)
{
	int id = hcn_genl_family(family);

	if (id == -EPROTONOSUPPORT) {
		fprintf(stderr,
			"Error: netlink family \"%s\" not found (is the module loaded?).\n",
			family);
		exit(EXIT_KERNEL);
	}
	if (id < 0)
		usage_error("cannot open a generic netlink socket");
}

int kernel_error(int err)
{
	const char *msg = hcn_extack_msg();

	if (err >= 0)
		return 0;
	if (msg[0])
		fprintf(stderr, "Error: %s: %s.\n", msg, strerror(-err));
	else
		fprintf(stderr, "Error: %s.\n", strerror(-err));
	return err;
}

int monitor_error(const char *family, int err)
{
	if (err == -ENOENT)
		fprintf(stderr, "Error: no multicast group \"events\" in \"%s\".\n",
			family);
	else
		fprintf(stderr, "Error: netlink: %s.\n", strerror(-err));
	return EXIT_KERNEL;
}

bool events_lost(const char *family, int err)
{
	if (err != -ENOBUFS)
		return false;
	fprintf(stderr,
		"Warning: \"%s\" events lost (receive buffer overrun).\n",
		family);
	return true;
}

/* The start of a notification: "[name]", or its JSON object with "event". */
void event_open(const char *name)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	print_open_object(NULL);
	print_string("event", "[%s]", name);
}

/* The end of a notification: one line, or one JSON document, each. */
void event_close(void)
{
	print_close_object();
	putchar('\n');
	print_reset();
}

/* ---- main ---- */

static void enter_netns(const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		usage_error("cannot open network namespace \"%s\": %s", name,
			    strerror(errno));
	if (setns(fd, CLONE_NEWNET))
		usage_error("cannot enter network namespace \"%s\": %s", name,
			    strerror(errno));
	close(fd);
}

int main(int argc, char **argv)
{
	argc--;
	argv++;
	while (argc > 0 && argv[0][0] == '-') {
		const char *opt = argv[0] + 1;

		if (opt[0] == '-')
			opt++;
		if (matches(opt, "help")) {
			print_usage(stdout);
			return 0;
		}
		if ((opt[0] == 'V' && (!opt[1] || matches(opt + 1, "ersion"))) ||
		    matches(opt, "version")) {
			printf("hicnctl %s\n", HICN_PSOCK_VERSION);
			return 0;
		}
		if (matches(opt, "json")) {
			json = true;
		} else if (matches(opt, "pretty")) {
			json = true;
			pretty = true;
		} else if (matches(opt, "statistics") || matches(opt, "stats")) {
			show_stats = true;
		} else if (matches(opt, "netns")) {
			if (argc < 2)
				usage_error("-netns needs a name");
			enter_netns(argv[1]);
			argc--;
			argv++;
		} else {
			usage_error("option \"%s\" is unknown, try \"hicnctl help\"",
				    argv[0]);
		}
		argc--;
		argv++;
	}
	if (argc < 1 || matches(argv[0], "help")) {
		print_usage(argc < 1 ? stderr : stdout);
		return argc < 1 ? EXIT_USAGE : 0;
	}
	if (matches(argv[0], "psock"))
		return do_psock(argc - 1, argv + 1);
	if (matches(argv[0], "hicn"))
		return do_hicn(argc - 1, argv + 1);
	if (matches(argv[0], "monitor"))
		return do_monitor(argc - 1, argv + 1);
	/*
	 * hicn's objects without "hicn", as in "hicnctl cs show"; psock's
	 * (its limits and stats too) only after "psock".
	 */
	if (hicn_object(argv[0]))
		return do_hicn(argc, argv);
	usage_error("object \"%s\" is unknown, try \"hicnctl help\"", argv[0]);
}
