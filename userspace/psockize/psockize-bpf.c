// SPDX-License-Identifier: GPL-2.0
/*
 * psockize-bpf: "psockize run --bpf COMMAND" (psockize(8)).
 *
 * Runs COMMAND with its TCP sockets made PSOCK by the kernel itself, so
 * that static binaries are reached too: a BPF program of type tracing,
 * attached as fmod_ret to update_socket_protocol() (net/socket.c, Linux
 * 6.6 and later), which socket(2) calls with its family, type and
 * protocol before creating the socket, and whose return value is the
 * protocol the socket gets.
 *
 * There is no clang nor libbpf on the machines that build this: the
 * program is a handful of instructions written out below, loaded with
 * bpf(2); the BTF id it attaches to is found by walking
 * /sys/kernel/btf/vmlinux.
 *
 * Scope.  The hook is system-wide; the program changes only the sockets
 * of processes in one cgroup v2: a child of psockize's own cgroup,
 * psockize.<pid>, made for this run.  Its id is an immediate of the
 * program.  COMMAND is started in it, and so are its children; a process
 * moved out of it (or started outside it) keeps TCP.  psockize stays as
 * COMMAND's parent holding the link: when COMMAND exits, psockize closes
 * the link (the hook is gone), removes the cgroup and exits with
 * COMMAND's status.  Processes COMMAND left running keep their PSOCK
 * sockets, but make TCP sockets from then on; their cgroup is then left
 * (psockize says so).
 *
 * Exit status: COMMAND's, 128 + the signal that killed it, 125 when the
 * hook could not be set (the reason on standard error), 126 or 127 when
 * COMMAND could not be run (not executable, not found).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/capability.h>
#include <linux/psock.h>

#define EXIT_SETUP	125
#define BTF_VMLINUX	"/sys/kernel/btf/vmlinux"
#define HOOK		"update_socket_protocol"
#define TYPE_MASK	0xf		/* SOCK_TYPE_MASK of the kernel */

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static noreturn void die(const char *fmt, ...)
{
	va_list ap;

	fputs("psockize: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_SETUP);
}

static const char need_root[] =
	"--bpf needs root (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)";

/* ---- BTF: the id of the FUNC named HOOK ---- */

static char *read_all(const char *path, size_t *len)
{
	size_t size = 1 << 20, n = 0;
	char *buf = NULL, *p;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		if (!buf || n == size) {
			if (buf)
				size *= 2;
			p = realloc(buf, size);
			if (!p)
				die("out of memory reading %s", path);
			buf = p;
		}
		r = read(fd, buf + n, size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("reading %s: %m", path);
		if (!r)
			break;
		n += r;
	}
	close(fd);
	*len = n;
	return buf;
}

/* Bytes that follow a struct btf_type of this kind; -1 for a kind not known. */
static long btf_extra(unsigned int kind, unsigned int vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	}
	return -1;
}

/* The type id of the function NAME in the kernel's BTF; 0 if none. */
static __u32 btf_func_id(const char *name)
{
	const struct btf_header *hdr;
	const char *strs, *types;
	size_t len, off = 0;
	__u32 id = 1, found = 0;
	char *buf;

	buf = read_all(BTF_VMLINUX, &len);
	if (!buf)
		die("this kernel has no BTF (%s: %m): --bpf needs CONFIG_DEBUG_INFO_BTF",
		    BTF_VMLINUX);
	hdr = (const void *)buf;
	if (len < sizeof(*hdr) || hdr->magic != BTF_MAGIC ||
	    hdr->hdr_len > len ||
	    (size_t)hdr->type_off + hdr->type_len > len - hdr->hdr_len ||
	    (size_t)hdr->str_off + hdr->str_len > len - hdr->hdr_len ||
	    !hdr->str_len || buf[hdr->hdr_len + hdr->str_off + hdr->str_len - 1])
		die("%s: not BTF this program understands", BTF_VMLINUX);
	types = buf + hdr->hdr_len + hdr->type_off;
	strs = buf + hdr->hdr_len + hdr->str_off;

	while (off + sizeof(struct btf_type) <= hdr->type_len) {
		const struct btf_type *t = (const void *)(types + off);
		unsigned int kind = BTF_INFO_KIND(t->info);
		long extra = btf_extra(kind, BTF_INFO_VLEN(t->info));

		if (extra < 0)
			die("%s: type %u has kind %u, unknown to this program",
			    BTF_VMLINUX, id, kind);
		if (kind == BTF_KIND_FUNC && t->name_off < hdr->str_len &&
		    !strcmp(strs + t->name_off, name)) {
			found = id;
			break;
		}
		off += sizeof(*t) + extra;
		id++;
	}
	free(buf);
	return found;
}

/* ---- the cgroup of the run ---- */

/*
 * The cgroup2 mount point, prefixed so that it can be opened from here:
 * ours, else PID 1's (through /proc/1/root: "ip netns exec" mounts a new
 * /sys, where cgroup2 is not mounted).
 */
static int cgroup2_root(void)
{
	static const char *const where[][2] = {
		{ "/proc/self/mountinfo", "" },
		{ "/proc/1/mountinfo", "/proc/1/root" },
	};
	char line[4096], path[PATH_MAX], root[PATH_MAX], mnt[PATH_MAX];
	unsigned int i;
	int fd = -1;

	for (i = 0; i < 2 && fd < 0; i++) {
		FILE *f = fopen(where[i][0], "re");

		while (f && fd < 0 && fgets(line, sizeof(line), f)) {
			char *sep = strstr(line, " - cgroup2 ");

			if (!sep || sscanf(line, "%*s %*s %*s %4095s %4095s",
					   root, mnt) != 2 || strcmp(root, "/"))
				continue;
			snprintf(path, sizeof(path), "%s%s", where[i][1], mnt);
			fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		}
		if (f)
			fclose(f);
	}
	if (fd < 0)
		die("no cgroup2 file system mounted: --bpf needs one (%s)",
		    "mount -t cgroup2 none /sys/fs/cgroup");
	return fd;
}

/* Our cgroup v2 path, without its leading '/' ("" for the root). */
static void cgroup_self(char *path, size_t size)
{
	char line[PATH_MAX + 8];
	FILE *f = fopen("/proc/self/cgroup", "re");
	size_t len;
	int ok = 0;

	while (f && !ok && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::/", 4))
			continue;
		len = strcspn(line + 4, "\n");
		if (len >= size)
			die("our cgroup's path is too long");
		memcpy(path, line + 4, len);
		path[len] = 0;
		ok = 1;
	}
	if (f)
		fclose(f);
	if (!ok)
		die("/proc/self/cgroup has no cgroup v2 line");
}

struct run_cgroup {
	int root;		/* the cgroup2 mount */
	char path[PATH_MAX];	/* of ours, from root */
	int fd;			/* ours */
	__u64 id;
};

static void cgroup_make(struct run_cgroup *cg)
{
	char self[PATH_MAX - 32];
	struct stat st;

	cg->root = cgroup2_root();
	cgroup_self(self, sizeof(self));
	snprintf(cg->path, sizeof(cg->path), "%s%spsockize.%d", self,
		 *self ? "/" : "", (int)getpid());
	if (mkdirat(cg->root, cg->path, 0755)) {
		if (errno == EACCES || errno == EPERM)
			die("creating cgroup /%s: %m: %s", cg->path, need_root);
		die("creating cgroup /%s: %m", cg->path);
	}
	cg->fd = openat(cg->root, cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* A cgroup's id, which bpf_get_current_cgroup_id() returns, is
	 * its kernfs inode number on 64-bit kernels.
	 */
	if (cg->fd < 0 || fstat(cg->fd, &st)) {
		unlinkat(cg->root, cg->path, AT_REMOVEDIR);
		die("opening cgroup /%s: %m", cg->path);
	}
	cg->id = st.st_ino;
}

/* Removes the cgroup once COMMAND is gone: its last tasks may take a moment. */
static void cgroup_remove(struct run_cgroup *cg)
{
	int i;

	close(cg->fd);
	for (i = 0; i < 20; i++) {
		if (!unlinkat(cg->root, cg->path, AT_REMOVEDIR) || errno != EBUSY)
			break;
		usleep(50000);
	}
	if (i == 20)
		fprintf(stderr, "psockize: %s /%s (TCP from now on); it is left there\n",
			"processes of the command still run in cgroup", cg->path);
	close(cg->root);
}

/* ---- the program ---- */

static struct bpf_insn insn(__u8 code, __u8 dst, __u8 src, __s16 off, __s32 imm)
{
	struct bpf_insn i = {
		.code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm,
	};

	return i;
}

#define N_INSNS	18
#define OUT	16		/* "return protocol" */

/*
 * ctx holds the arguments as u64s: family at 0, type at 8, protocol at
 * 16; ints, so only the low 32 bits count (32-bit compares).  r6 = ctx,
 * r7 = protocol.  Returning the protocol unchanged is what the function
 * itself does.
 */
static void prog_build(struct bpf_insn *p, __u64 cgroup_id)
{
	const __u8 LDX = BPF_LDX | BPF_MEM | BPF_DW, J32 = BPF_JMP32 | BPF_K;

	p[0] = insn(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	p[1] = insn(LDX, 7, 6, 16, 0);
	p[2] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_cgroup_id);
	p[3] = insn(BPF_LD | BPF_IMM | BPF_DW, 1, 0, 0, (__u32)cgroup_id);
	p[4] = insn(0, 0, 0, 0, (__u32)(cgroup_id >> 32));
	p[5] = insn(BPF_JMP | BPF_JNE | BPF_X, 0, 1, OUT - 6, 0);
	p[6] = insn(LDX, 1, 6, 0, 0);
	p[7] = insn(J32 | BPF_JEQ, 1, 0, 1, AF_INET);
	p[8] = insn(J32 | BPF_JNE, 1, 0, OUT - 9, AF_INET6);
	p[9] = insn(LDX, 1, 6, 8, 0);
	p[10] = insn(BPF_ALU | BPF_AND | BPF_K, 1, 0, 0, TYPE_MASK);
	p[11] = insn(J32 | BPF_JNE, 1, 0, OUT - 12, SOCK_STREAM);
	p[12] = insn(J32 | BPF_JEQ, 7, 0, 1, 0);
	p[13] = insn(J32 | BPF_JNE, 7, 0, OUT - 14, IPPROTO_TCP);
	p[14] = insn(BPF_ALU | BPF_MOV | BPF_K, 0, 0, 0, IPPROTO_PSOCK);
	p[15] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	p[OUT] = insn(BPF_ALU | BPF_MOV | BPF_X, 0, 7, 0, 0);
	p[17] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static char verifier_log[65536];

static int prog_load(__u32 btf_id, __u64 cgroup_id)
{
	struct bpf_insn insns[N_INSNS];
	union bpf_attr attr;
	int fd;

	prog_build(insns, cgroup_id);
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_TRACING;
	attr.expected_attach_type = BPF_MODIFY_RETURN;
	attr.attach_btf_id = btf_id;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = N_INSNS;
	attr.license = (uintptr_t)"GPL";
	attr.log_buf = (uintptr_t)verifier_log;
	attr.log_size = sizeof(verifier_log);
	attr.log_level = 1;
	snprintf(attr.prog_name, sizeof(attr.prog_name), "psockize");
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd >= 0)
		return fd;
	if (errno == EPERM || errno == EACCES)
		fprintf(stderr, "psockize: loading the BPF program: %m: %s\n", need_root);
	else
		fprintf(stderr, "psockize: loading the BPF program: %m\n%s", verifier_log);
	return -1;
}

static int prog_attach(int prog)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.prog_fd = prog;
	fd = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
	if (fd < 0)
		fprintf(stderr, "psockize: attaching the BPF program to %s(): %m: %s\n",
			HOOK, errno == EPERM ? need_root :
			"it needs BPF trampolines (CONFIG_BPF_JIT, CONFIG_FUNCTION_TRACER)");
	return fd;
}

/* ---- capabilities ---- */

static int has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return !!(d[cap / 32].effective & (1U << (cap % 32)));
}

static void check_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};

	if (syscall(SYS_capget, &h, d))
		die("capget: %m");
	if (!has_cap(d, CAP_SYS_ADMIN) &&
	    !(has_cap(d, CAP_BPF) && has_cap(d, CAP_PERFMON)))
		die("%s", need_root);
}

/* ---- COMMAND ---- */

static pid_t child;

/*
 * A signal sent to psockize goes on to COMMAND; one the terminal sent
 * (SI_KERNEL) went to COMMAND's process group already.
 */
static void forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (child > 0 && si->si_code != SI_KERNEL)
		kill(child, sig);
}

static void signals_forward(void)
{
	static const int sigs[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_sigaction = forward, .sa_flags = SA_SIGINFO };
	struct sigaction old;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		/* An ignored signal stays ignored, for COMMAND too. */
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

static noreturn void exec_command(struct run_cgroup *cg, char **argv)
{
	int fd = openat(cg->fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, "0\n", 2) != 2) {
		fprintf(stderr, "psockize: joining cgroup /%s: %m\n", cg->path);
		_exit(EXIT_SETUP);
	}
	close(fd);
	execvp(argv[0], argv);
	fprintf(stderr, "psockize: %s: %m\n", argv[0]);
	_exit(errno == ENOENT ? 127 : 126);
}

static int wait_command(void)
{
	int status;

	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %m");
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	struct run_cgroup cg;
	int prog, link, rc;
	__u32 btf_id;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "Usage: psockize run --bpf COMMAND [ARGS...]\n");
		return EXIT_SETUP;
	}
	btf_id = btf_func_id(HOOK);
	if (!btf_id)
		die("this kernel has no %s() hook (Linux 6.6 or later has it): %s", HOOK,
		    "--bpf cannot work here; psockize run without --bpf uses the LD_PRELOAD library");
	check_caps();

	cg.fd = -1;
	cgroup_make(&cg);
	prog = prog_load(btf_id, cg.id);
	link = prog < 0 ? -1 : prog_attach(prog);
	if (link < 0) {
		cgroup_remove(&cg);
		return EXIT_SETUP;
	}
	close(prog);		/* the link holds it */

	signals_forward();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "psockize: fork: %m\n");
		rc = EXIT_SETUP;
	} else if (!pid) {
		exec_command(&cg, argv + 1);
	} else {
		child = pid;
		rc = wait_command();
	}
	close(link);		/* the hook is gone */
	cgroup_remove(&cg);
	return rc;
}
