// SPDX-License-Identifier: GPL-2.0
/*
 * insn_window - a QEMU TCG plugin that counts the guest instructions executed
 * between two marker instructions the guest runs.
 *
 *   xchg %bx,%bx   (66 87 db)   opens a window
 *   xchg %cx,%cx   (66 87 c9)   closes it
 *
 * Both are no-ops to the CPU. Everything the vCPUs execute in between is
 * counted - kernel, every process, interrupts - so a window measures the
 * whole cost of what the guest did, split into kernel and user mode by the
 * address of each translation block. Windows are numbered 0, 1, 2... in the
 * order they open; the guest keeps its own list of what each one was.
 *
 * Usage: qemu-system-x86_64 -plugin insn_window.so,out=FILE[,prof=PFILE] ...
 *
 * FILE gets one line per window as it closes (flushed, so a guest that
 * dies keeps what it measured), then a summary at exit:
 *
 *   window N INSNS KERNEL_INSNS
 *   aborted N            a window opened again before it closed
 *   stray-close          a close marker outside any window
 *   end WINDOWS INSNS    at exit: windows closed, instructions in all
 *
 * With prof=PFILE, also a profile of each window, where its instructions ran:
 * as the window closes, one line per translation block it executed,
 *
 *   N VADDR INSNS EXECS  window N ran the block at VADDR (hex) of INSNS
 *                        instructions EXECS times
 *
 * (a callback per block executed: it slows the guest down several times;
 * the counts above stay exact).
 *
 * Counts are exact on one vCPU, give or take a few instructions when a
 * translation block is left early (a fault): an inline add at the start of
 * each block counts all of its instructions, and the marker callbacks take
 * off those after the marker. With several vCPUs the counts of all of them
 * are summed, and windows are no longer one thread of execution's.
 *
 * Debian ships no plugin header, so the few API functions used are declared
 * below, for two generations of the API (PLUGIN_API, set by the
 * Makefile from the QEMU version):
 *
 *   1  QEMU 4.2 to 8.2 (Debian 12's 7.2): qemu_plugin_version 1, inline ops
 *      on a plain counter, qemu_plugin_insn_data() returns a pointer;
 *   3  QEMU 9.1 and later (accept versions 2..): per-vCPU inline ops on a
 *      scoreboard, qemu_plugin_insn_data() copies the bytes.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PLUGIN_API
#define PLUGIN_API 1
#endif
#if PLUGIN_API != 1 && PLUGIN_API != 3
#error "PLUGIN_API must be 1 (QEMU < 9.0) or 3 (QEMU >= 9.1)"
#endif

#define EXPORT __attribute__((visibility("default")))

/* --- The QEMU plugin API, as include/qemu/qemu-plugin.h declares it. --- */

typedef uint64_t qemu_plugin_id_t;

typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_outs(const char *string);

#if PLUGIN_API == 1
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
#else
struct qemu_plugin_scoreboard;
typedef struct {
	struct qemu_plugin_scoreboard *score;
	size_t offset;
} qemu_plugin_u64;

size_t qemu_plugin_insn_data(const struct qemu_plugin_insn *insn, void *dest,
			     size_t len);
struct qemu_plugin_scoreboard *qemu_plugin_scoreboard_new(size_t element_size);
void qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(struct qemu_plugin_tb *tb,
						       enum qemu_plugin_op op,
						       qemu_plugin_u64 entry,
						       uint64_t imm);
uint64_t qemu_plugin_u64_sum(qemu_plugin_u64 entry);
#endif

EXPORT int qemu_plugin_version = PLUGIN_API;
EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv);

/* --- The plugin. --- */

#define MARKER_LEN	3
static const uint8_t marker_open[MARKER_LEN] = { 0x66, 0x87, 0xdb };
static const uint8_t marker_close[MARKER_LEN] = { 0x66, 0x87, 0xc9 };

/* Guest virtual addresses from here up are the kernel's (x86-64). */
#define KERNEL_START	0xffff800000000000ULL

/* Marker callback userdata: kind in bit 0, instructions after it above. */
#define UD_CLOSE	1UL
#define UD_TAIL_SHIFT	1

#if PLUGIN_API == 1
static uint64_t count_all, count_kernel;

static void count_tb(struct qemu_plugin_tb *tb, bool kernel, size_t n)
{
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &count_all, n);
	if (kernel)
		qemu_plugin_register_vcpu_tb_exec_inline(tb,
				QEMU_PLUGIN_INLINE_ADD_U64, &count_kernel, n);
}

static uint64_t read_all(void)
{
	return count_all;
}

static uint64_t read_kernel(void)
{
	return count_kernel;
}

static int counters_init(void)
{
	return 0;
}
#else
static qemu_plugin_u64 count_all, count_kernel;

static void count_tb(struct qemu_plugin_tb *tb, bool kernel, size_t n)
{
	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb,
			QEMU_PLUGIN_INLINE_ADD_U64, count_all, n);
	if (kernel)
		qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb,
				QEMU_PLUGIN_INLINE_ADD_U64, count_kernel, n);
}

static uint64_t read_all(void)
{
	return qemu_plugin_u64_sum(count_all);
}

static uint64_t read_kernel(void)
{
	return qemu_plugin_u64_sum(count_kernel);
}

static int counters_init(void)
{
	count_all.score = qemu_plugin_scoreboard_new(sizeof(uint64_t));
	count_kernel.score = qemu_plugin_scoreboard_new(sizeof(uint64_t));
	return count_all.score && count_kernel.score ? 0 : -1;
}
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out, *prof;
static const char *out_path, *prof_path;
static bool in_window;
static unsigned long windows, closed;
static uint64_t start_all, start_kernel;

/* The profile: every block translated, newest first (under lock). */
struct prof_tb {
	uint64_t vaddr;
	uint64_t execs;		/* in the open window */
	size_t insns;
	struct prof_tb *next;
};
static struct prof_tb *prof_tbs;

static void prof_exec(unsigned int vcpu_index, void *userdata)
{
	struct prof_tb *tb = userdata;

	(void)vcpu_index;
	if (in_window)
		__atomic_add_fetch(&tb->execs, 1, __ATOMIC_RELAXED);
}

static void prof_tb_add(struct qemu_plugin_tb *tb, size_t n)
{
	struct prof_tb *p = calloc(1, sizeof(*p));

	if (!p)
		return;
	p->vaddr = qemu_plugin_tb_vaddr(tb);
	p->insns = n;
	pthread_mutex_lock(&lock);
	p->next = prof_tbs;
	prof_tbs = p;
	pthread_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, prof_exec,
					     QEMU_PLUGIN_CB_NO_REGS, p);
}

/* Write window @w's profile and start the next from zero (under lock). */
static void prof_flush(unsigned long w)
{
	struct prof_tb *p;

	for (p = prof_tbs; p; p = p->next) {
		if (!p->execs)
			continue;
		if (w != ~0UL)
			fprintf(prof, "%lu %" PRIx64 " %zu %" PRIu64 "\n", w,
				p->vaddr, p->insns, p->execs);
		p->execs = 0;
	}
	fflush(prof);
}

static void emit(const char *fmt, unsigned long a, uint64_t b, uint64_t c)
{
	char line[128];

	snprintf(line, sizeof(line), fmt, a, b, c);
	if (out) {
		fputs(line, out);
		fflush(out);
	} else {
		qemu_plugin_outs(line);
	}
}

static void marker_exec(unsigned int vcpu_index, void *userdata)
{
	uintptr_t ud = (uintptr_t)userdata;
	uint64_t tail = ud >> UD_TAIL_SHIFT;
	/* What ran up to and including the marker. */
	uint64_t all = read_all() - tail;
	uint64_t kernel = read_kernel();

	(void)vcpu_index;
	pthread_mutex_lock(&lock);
	if (!(ud & UD_CLOSE)) {
		if (in_window)
			emit("aborted %lu\n", windows - 1, 0, 0);
		if (prof)
			prof_flush(~0UL);
		in_window = true;
		windows++;
		start_all = all;
		start_kernel = kernel;
	} else if (!in_window) {
		emit("stray-close\n", 0, 0, 0);
	} else {
		in_window = false;
		closed++;
		/* The markers run in user mode: no kernel tail to take off. */
		emit("window %lu %" PRIu64 " %" PRIu64 "\n", windows - 1,
		     all - start_all, kernel - start_kernel);
		if (prof)
			prof_flush(windows - 1);
	}
	pthread_mutex_unlock(&lock);
}

static int marker_kind(const struct qemu_plugin_insn *insn)
{
	uint8_t bytes[MARKER_LEN];

	if (qemu_plugin_insn_size(insn) != MARKER_LEN)
		return -1;
#if PLUGIN_API == 1
	memcpy(bytes, qemu_plugin_insn_data(insn), MARKER_LEN);
#else
	if (qemu_plugin_insn_data(insn, bytes, MARKER_LEN) != MARKER_LEN)
		return -1;
#endif
	if (!memcmp(bytes, marker_open, MARKER_LEN))
		return 0;
	if (!memcmp(bytes, marker_close, MARKER_LEN))
		return UD_CLOSE;
	return -1;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	bool kernel = qemu_plugin_tb_vaddr(tb) >= KERNEL_START;

	(void)id;
	count_tb(tb, kernel, n);
	if (prof)
		prof_tb_add(tb, n);
	if (kernel)
		return;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int kind = marker_kind(insn);
		uintptr_t ud;

		if (kind < 0)
			continue;
		ud = ((uintptr_t)(n - 1 - i) << UD_TAIL_SHIFT) | (uintptr_t)kind;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, marker_exec,
						       QEMU_PLUGIN_CB_NO_REGS,
						       (void *)ud);
	}
}

static void at_exit(qemu_plugin_id_t id, void *userdata)
{
	char line[160];

	(void)id;
	(void)userdata;
	pthread_mutex_lock(&lock);
	emit("end %lu %" PRIu64 "\n", closed, read_all(), 0);
	snprintf(line, sizeof(line),
		 "insn_window: %lu windows closed, %" PRIu64 " instructions in all%s%s\n",
		 closed, read_all(), out ? ", counts in " : "",
		 out ? out_path : "");
	qemu_plugin_outs(line);
	if (out)
		fclose(out);
	out = NULL;
	if (prof)
		fclose(prof);
	prof = NULL;
	pthread_mutex_unlock(&lock);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	int i;

	if (info->version.cur < PLUGIN_API ||
	    info->version.min > PLUGIN_API) {
		fprintf(stderr,
			"insn_window: built for plugin API %d, QEMU takes %d..%d: rebuild it (make -C bench QEMU=...)\n",
			PLUGIN_API, info->version.min, info->version.cur);
		return -1;
	}
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = argv[i] + 4;
		} else if (!strncmp(argv[i], "prof=", 5)) {
			prof_path = argv[i] + 5;
		} else {
			fprintf(stderr, "insn_window: unknown argument '%s' (takes out=FILE, prof=FILE)\n",
				argv[i]);
			return -1;
		}
	}
	if (prof_path) {
		prof = fopen(prof_path, "w");
		if (!prof) {
			perror(prof_path);
			return -1;
		}
	}
	if (out_path) {
		out = fopen(out_path, "w");
		if (!out) {
			perror(out_path);
			return -1;
		}
	}
	if (counters_init())
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
