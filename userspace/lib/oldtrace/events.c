// SPDX-License-Identifier: GPL-2.0
/* The event table: names, arguments and versions, as Go's parser has them. */
#include "internal.h"

#define D(n, ver, stk, ...) { .name = n, .min_ver = GT_VER(ver), .stack = stk, __VA_ARGS__ }
#define A(...) .args = { __VA_ARGS__, NULL }
#define S(...) .sargs = { __VA_ARGS__, NULL }
#define B(how) .block = GT_BLOCK_##how

const struct gt_desc gt_descs[GT_EV_COUNT] = {
	[GT_EV_NONE] = D("None", 5, false),
	[GT_EV_BATCH] = D("Batch", 5, false, A("p", "ticks")),
	[GT_EV_FREQUENCY] = D("Frequency", 5, false, A("freq")),
	[GT_EV_STACK] = D("Stack", 5, false, A("id", "siz")),
	[GT_EV_GOMAXPROCS] = D("Gomaxprocs", 5, true, A("procs")),
	[GT_EV_PROC_START] = D("ProcStart", 5, false, A("thread")),
	[GT_EV_PROC_STOP] = D("ProcStop", 5, false),
	[GT_EV_GC_START] = D("GCStart", 5, true, A("seq")),
	[GT_EV_GC_DONE] = D("GCDone", 5, false),
	[GT_EV_STW_START] = D("GCSTWStart", 5, false, A("kindid"), S("kind")),
	[GT_EV_STW_DONE] = D("GCSTWDone", 5, false),
	[GT_EV_GC_SWEEP_START] = D("GCSweepStart", 5, true),
	[GT_EV_GC_SWEEP_DONE] = D("GCSweepDone", 5, false, A("swept", "reclaimed")),
	[GT_EV_GO_CREATE] = D("GoCreate", 5, true, A("g", "stack")),
	[GT_EV_GO_START] = D("GoStart", 5, false, A("g", "seq")),
	[GT_EV_GO_END] = D("GoEnd", 5, false),
	[GT_EV_GO_STOP] = D("GoStop", 5, true),
	[GT_EV_GO_SCHED] = D("GoSched", 5, true),
	[GT_EV_GO_PREEMPT] = D("GoPreempt", 5, true),
	[GT_EV_GO_SLEEP] = D("GoSleep", 5, true, B(WAIT)),
	[GT_EV_GO_BLOCK] = D("GoBlock", 5, true, B(SYNC)),
	[GT_EV_GO_UNBLOCK] = D("GoUnblock", 5, true, A("g", "seq")),
	[GT_EV_GO_BLOCK_SEND] = D("GoBlockSend", 5, true, B(SYNC)),
	[GT_EV_GO_BLOCK_RECV] = D("GoBlockRecv", 5, true, B(SYNC)),
	[GT_EV_GO_BLOCK_SELECT] = D("GoBlockSelect", 5, true, B(SYNC)),
	[GT_EV_GO_BLOCK_SYNC] = D("GoBlockSync", 5, true, B(SYNC)),
	[GT_EV_GO_BLOCK_COND] = D("GoBlockCond", 5, true, B(SYNC)),
	[GT_EV_GO_BLOCK_NET] = D("GoBlockNet", 5, true, B(WAIT)),
	[GT_EV_GO_SYSCALL] = D("GoSysCall", 5, true),
	[GT_EV_GO_SYSEXIT] = D("GoSysExit", 5, false, A("g", "seq", "ts")),
	[GT_EV_GO_SYSBLOCK] = D("GoSysBlock", 5, false, B(WAIT)),
	[GT_EV_GO_WAITING] = D("GoWaiting", 5, false, A("g")),
	[GT_EV_GO_IN_SYSCALL] = D("GoInSyscall", 5, false, A("g")),
	[GT_EV_HEAP_ALLOC] = D("HeapAlloc", 5, false, A("mem")),
	[GT_EV_HEAP_GOAL] = D("HeapGoal", 5, false, A("mem")),
	[GT_EV_TIMER_GOROUTINE] = D("TimerGoroutine", 5, false, A("g")),
	[GT_EV_FUTILE_WAKEUP] = D("FutileWakeup", 5, false),
	[GT_EV_STRING] = D("String", 7, false),
	[GT_EV_GO_START_LOCAL] = D("GoStartLocal", 7, false, A("g")),
	[GT_EV_GO_UNBLOCK_LOCAL] = D("GoUnblockLocal", 7, true, A("g")),
	[GT_EV_GO_SYSEXIT_LOCAL] = D("GoSysExitLocal", 7, false, A("g", "ts")),
	[GT_EV_GO_START_LABEL] = D("GoStartLabel", 8, false, A("g", "seq", "labelid"), S("label")),
	[GT_EV_GO_BLOCK_GC] = D("GoBlockGC", 8, true, B(WAIT)),
	[GT_EV_GC_MARK_ASSIST_START] = D("GCMarkAssistStart", 9, true),
	[GT_EV_GC_MARK_ASSIST_DONE] = D("GCMarkAssistDone", 9, false),
	[GT_EV_USER_TASK_CREATE] = D("UserTaskCreate", 11, true, A("taskid", "pid", "typeid"),
				     S("name")),
	[GT_EV_USER_TASK_END] = D("UserTaskEnd", 11, true, A("taskid")),
	[GT_EV_USER_REGION] = D("UserRegion", 11, true, A("taskid", "mode", "typeid"), S("name")),
	[GT_EV_USER_LOG] = D("UserLog", 11, true, A("id", "keyid"), S("category", "message")),
	[GT_EV_CPU_SAMPLE] = D("CPUSample", 19, true, A("ts", "p", "g")),
};

/* Go's argNum() for versions from 1.7 on. */
int gt_nr_args(unsigned int type, int ver)
{
	const struct gt_desc *d = &gt_descs[type];
	int n = 0;

	while (d->args[n])
		n++;
	n += d->stack;
	switch (type) {
	case GT_EV_BATCH:
	case GT_EV_FREQUENCY:
	case GT_EV_TIMER_GOROUTINE:
		return n;
	case GT_EV_GC_SWEEP_DONE:
		if (ver < GT_VER(9))
			n -= 2;		/* 1.9 added swept and reclaimed */
		break;
	case GT_EV_STW_START:
		if (ver < GT_VER(10))
			n--;		/* 1.10 added the kind */
		break;
	}
	return n + 1;			/* the time stamp */
}

const char *gt_event_name(const struct gt_trace *t, unsigned int type)
{
	if (type >= GT_EV_COUNT)
		return "?";
	/* Go 1.21's parser renamed the STW events when it widened their kinds. */
	if (t && t->ver >= GT_VER(21) && type == GT_EV_STW_START)
		return "STWStart";
	if (t && t->ver >= GT_VER(21) && type == GT_EV_STW_DONE)
		return "STWDone";
	return gt_descs[type].name;
}

const char *const *gt_event_args(unsigned int type)
{
	return gt_descs[type < GT_EV_COUNT ? type : GT_EV_NONE].args;
}

const char *const *gt_event_sargs(unsigned int type)
{
	return gt_descs[type < GT_EV_COUNT ? type : GT_EV_NONE].sargs;
}
