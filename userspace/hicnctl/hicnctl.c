// SPDX-License-Identifier: GPL-2.0
/*
 * hicnctl: options, dispatch to the objects, the generic netlink session
 * (libnl-genl-3) and the one printer behind text and -j output.
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

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "hicnctl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

bool json;

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
	fprintf(f, "Usage: hicnctl [ OPTIONS ] OBJECT { COMMAND | help }\n");
	print_grammar(f, hicn_grammar, "       ", false);
	print_grammar(f, psock_grammar, "       ", false);
	fprintf(f, "OBJECT := { hicn | psock }\n");
	print_grammar(f, hicn_grammar, NULL, true);
	print_grammar(f, psock_grammar, NULL, true);
	fprintf(f,
		"OPTIONS := { -j[son] | -n[etns] NAME | -h[elp] | -V[ersion] }\n"
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

static void json_comma(void)
{
	if (json_sep[json_depth])
		putchar(',');
	json_sep[json_depth] = true;
}

static void json_key(const char *key)
{
	json_comma();
	if (key)
		printf("\"%s\":", key);
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
	if (json) {
		putchar(']');
		json_depth--;
	}
}

void print_open_object(const char *key)
{
	if (json)
		json_open(key, '{');
}

void print_close_object(void)
{
	if (json) {
		putchar('}');
		json_depth--;
	}
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

/* ---- netlink ---- */

static struct nl_sock *nl_sk;
static int nl_family;

int nl_open(const char *family)
{
	int one = 1;

	nl_sk = nl_socket_alloc();
	if (!nl_sk || genl_connect(nl_sk))
		usage_error("cannot open a generic netlink socket");
	/* Errors come with the kernel's message, without our request. */
	setsockopt(nl_socket_get_fd(nl_sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(nl_sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));
	nl_family = genl_ctrl_resolve(nl_sk, family);
	if (nl_family < 0) {
		fprintf(stderr,
			"Error: netlink family \"%s\" not found (is the module loaded?).\n",
			family);
		exit(EXIT_KERNEL);
	}
	return 0;
}

struct nl_msg *nl_request(__u8 cmd, bool dump)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl_family, 0,
				 dump ? NLM_F_DUMP : 0, cmd, 1))
		usage_error("out of memory");
	return msg;
}

struct nl_state {
	nl_answer_cb	cb;
	void		*arg;
	int		err;		/* -errno from the kernel */
	char		emsg[256];	/* its extack message */
	bool		done;
};

static int nl_on_valid(struct nl_msg *msg, void *arg)
{
	struct nl_state *st = arg;

	return st->cb ? st->cb(msg, st->arg) : NL_OK;
}

/* Copies the extack message of the TLVs at @a (@len bytes) into @st. */
static void nl_extack(struct nl_state *st, struct nlattr *a, int len)
{
	for (; nla_ok(a, len); a = nla_next(a, &len))
		if (nla_type(a) == NLMSGERR_ATTR_MSG)
			snprintf(st->emsg, sizeof(st->emsg), "%.*s",
				 nla_len(a), (char *)nla_data(a));
}

static int nl_on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct nl_state *st = arg;
	size_t off;

	(void)nla;
	st->err = e->error;
	st->done = true;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	off = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	if (NLMSG_HDRLEN + off > nlh->nlmsg_len)
		return NL_STOP;
	nl_extack(st, (struct nlattr *)((char *)e + off),
		  nlh->nlmsg_len - NLMSG_HDRLEN - off);
	return NL_STOP;
}

static int nl_on_ack(struct nl_msg *msg, void *arg)
{
	struct nl_state *st = arg;

	(void)msg;
	st->done = true;
	return NL_STOP;
}

/*
 * The end of a dump: NLMSG_DONE carries the dump's result, an int, and
 * when it failed the extack TLVs after it (a request the dump refused).
 */
static int nl_on_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nl_state *st = arg;
	size_t off = NLMSG_ALIGN(sizeof(int));
	int err;

	st->done = true;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(int))
		return NL_STOP;
	memcpy(&err, nlmsg_data(nlh), sizeof(err));
	if (err >= 0)
		return NL_STOP;
	st->err = err;
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) &&
	    nlh->nlmsg_len >= NLMSG_HDRLEN + off)
		nl_extack(st, (struct nlattr *)((char *)nlmsg_data(nlh) + off),
			  nlh->nlmsg_len - NLMSG_HDRLEN - off);
	return NL_STOP;
}

int nl_transact(struct nl_msg *msg, nl_answer_cb cb, void *arg)
{
	struct nl_state st = { .cb = cb, .arg = arg };
	struct nl_cb *nlcb;
	int err;

	nlmsg_hdr(msg)->nlmsg_flags |= NLM_F_ACK;
	nlcb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!nlcb)
		usage_error("out of memory");
	nl_cb_set(nlcb, NL_CB_VALID, NL_CB_CUSTOM, nl_on_valid, &st);
	nl_cb_set(nlcb, NL_CB_ACK, NL_CB_CUSTOM, nl_on_ack, &st);
	nl_cb_set(nlcb, NL_CB_FINISH, NL_CB_CUSTOM, nl_on_finish, &st);
	nl_cb_err(nlcb, NL_CB_CUSTOM, nl_on_error, &st);

	err = nl_send_auto(nl_sk, msg);
	nlmsg_free(msg);
	while (err >= 0 && !st.done)
		err = nl_recvmsgs(nl_sk, nlcb);
	nl_cb_put(nlcb);
	if (err < 0 && !st.err) {
		fprintf(stderr, "Error: netlink: %s.\n", nl_geterror(err));
		exit(EXIT_KERNEL);
	}
	if (st.err) {
		if (st.emsg[0])
			fprintf(stderr, "Error: %s: %s.\n", st.emsg,
				strerror(-st.err));
		else
			fprintf(stderr, "Error: %s.\n", strerror(-st.err));
		return st.err;
	}
	return 0;
}

/*
 * Joins multicast @group of the family nl_open() resolved and calls @cb
 * for every notification, until an error.
 */
int nl_monitor(const char *family, const char *group, nl_answer_cb cb)
{
	int grp, err;

	grp = genl_ctrl_resolve_grp(nl_sk, family, group);
	if (grp < 0) {
		fprintf(stderr, "Error: no multicast group \"%s\" in \"%s\".\n",
			group, family);
		return EXIT_KERNEL;
	}
	err = nl_socket_add_membership(nl_sk, grp);
	if (err) {
		fprintf(stderr, "Error: joining \"%s\": %s.\n", group,
			nl_geterror(err));
		return EXIT_KERNEL;
	}
	nl_socket_disable_seq_check(nl_sk);
	nl_socket_modify_cb(nl_sk, NL_CB_VALID, NL_CB_CUSTOM, cb, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	do
		err = nl_recvmsgs_default(nl_sk);
	while (err >= 0 || err == -NLE_INTR);
	fprintf(stderr, "Error: netlink: %s.\n", nl_geterror(err));
	return EXIT_KERNEL;
}

/*
 * The start of a multicast notification: its name is @names[cmd] (a
 * command without a name is no event: skipped), its attributes are parsed
 * into @tb.  Prints "[name]", or opens its JSON object with "event".
 * Returns false when the message is to be skipped.
 */
bool event_open(struct nl_msg *msg, const char *const *names,
		unsigned int n, struct nlattr **tb, int maxattr)
{
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));

	if (g->cmd >= n || !names[g->cmd] ||
	    genlmsg_parse(nlmsg_hdr(msg), 0, tb, maxattr, NULL))
		return false;
	print_open_object(NULL);
	print_string("event", "[%s]", names[g->cmd]);
	return true;
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
	usage_error("object \"%s\" is unknown, try \"hicnctl help\"", argv[0]);
}
