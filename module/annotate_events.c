// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace user annotations: tasks, regions and log messages that processes
 * record through /dev/gotrace-annotate (annotate_dev.c), as Go's runtime/trace
 * records trace.NewTask, trace.WithRegion and trace.Log.
 *
 * Each session has a struct gotrace_ann, allocated with it: its strings
 * (task and region names, categories, and messages in formats 1.22 and
 * later), the tasks it began and the regions open on each thread. A lock
 * taken with interrupts off serialises every annotation: it checks the
 * state, writes its event into the current CPU's buffer as the calling
 * thread's (it runs there, the P's goroutine), as the probes write theirs,
 * then changes the state. Nothing here is on the probes' path.
 *
 * Strings get ids in order of first use: the footer (footer.c) writes them
 * after the probes' strings, all of them at the stop, or with generations
 * every one known when the generation closed, in each generation's tables
 * (a string is published before any event names it, and an event of a
 * generation is written before the generation closes: generations.c).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/hash.h>
#include <linux/irqflags.h>
#include <linux/jhash.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "annotate_events.h"
#include "buffer.h"
#include "clock.h"
#include "cpu.h"
#include "encode_oldtrace.h"
#include "encode_tracev2.h"
#include "footer.h"
#include "gfp.h"
#include "probes.h"
#include "programs.h"
#include "reasons.h"
#include "record.h"
#include "session.h"
#include "stacks.h"
#include "threads.h"

/* Go's event types of user annotations, before 1.22 and since. */
#define GO_EV_USER_TASK_CREATE		45
#define GO_EV_USER_TASK_END		46
#define GO_EV_USER_REGION		47
#define GO_EV_USER_LOG			48
#define GO2_EV_USER_TASK_BEGIN		40
#define GO2_EV_USER_TASK_END		41
#define GO2_EV_USER_REGION_BEGIN	42
#define GO2_EV_USER_REGION_END		43
#define GO2_EV_USER_LOG			44

/* Hash slots of the strings: twice as many as strings. */
#define GOTRACE_ANN_SLOTS	(2 * GOTRACE_ANNOTATE_STRINGS)

/* Hash buckets of the open regions, by thread id. */
#define GOTRACE_ANN_RBITS	8

/**
 * struct gotrace_ann_region - a region open on a thread
 * @pid:	the thread's id.
 * @tag:	gotrace_tag() of the thread, to tell a reused id apart.
 * @task:	the task the region belongs to.
 * @name:	its name's string id.
 * @next:	index + 1 of the next entry in its bucket's list, or in the
 *		free list; 0 ends the list.
 */
struct gotrace_ann_region {
	pid_t pid;
	u32 tag;
	u64 task;
	u32 name;
	u16 next;
};

/**
 * struct gotrace_ann - a session's annotations
 * @lock:	protects every field but @nr_strs's reads and the strings
 *		below it, which never change once counted.
 * @nr_strs:	strings known; written under @lock with release after the
 *		string, read by the footer with acquire.
 * @bytes:	bytes of @arena used.
 * @str_off:	where each string starts in @arena, NUL-terminated.
 * @slots:	hash table of the strings: index + 1, 0 for an empty slot.
 * @tasks:	tasks begun.
 * @open:	which of them (id - 1) have not ended.
 * @rfree:	index + 1 of the first free entry of @regions, 0 if none.
 * @rbucket:	per hash of a thread id, index + 1 of the first entry of
 *		its list of open regions, newest first (so a thread's first
 *		entry is its innermost region), 0 if none.
 * @regions:	regions open, on every thread.
 * @arena:	the strings' bytes.
 */
struct gotrace_ann {
	spinlock_t lock;	/* see above */
	u32 nr_strs;
	u32 bytes;
	u32 str_off[GOTRACE_ANNOTATE_STRINGS];
	u16 slots[GOTRACE_ANN_SLOTS];
	u64 tasks;
	DECLARE_BITMAP(open, GOTRACE_ANNOTATE_TASKS);
	u16 rfree;
	u16 rbucket[1 << GOTRACE_ANN_RBITS];
	struct gotrace_ann_region regions[GOTRACE_ANNOTATE_REGIONS];
	char arena[GOTRACE_ANNOTATE_STR_BYTES];
};

/* Slot indexes fit the u16 slots; string ids past the programs' fit the footer's. */
static_assert(GOTRACE_ANNOTATE_STRINGS < U16_MAX);
/* Region indexes + 1 fit the u16 links. */
static_assert(GOTRACE_ANNOTATE_REGIONS < U16_MAX);

/**
 * gotrace_ann_alloc - a session's empty annotations
 *
 * Return: them, or NULL if they cannot be allocated.
 */
struct gotrace_ann *gotrace_ann_alloc(void)
{
	struct gotrace_ann *a = kvzalloc(sizeof(*a), GOTRACE_GFP);
	u16 i;

	if (!a)
		return NULL;
	spin_lock_init(&a->lock);
	/* Every region entry free, in order: entry i links to i + 1. */
	for (i = 0; i < GOTRACE_ANNOTATE_REGIONS - 1; i++)
		a->regions[i].next = i + 2;
	a->rfree = 1;
	return a;
}

/**
 * gotrace_ann_free - free a session's annotations
 * @a: them, or NULL
 */
void gotrace_ann_free(struct gotrace_ann *a)
{
	kvfree(a);
}

/**
 * gotrace_ann_strings - how many strings the annotations hold now
 * @a: the annotations
 *
 * Return: the count; strings 0 to count - 1 are complete and stay so.
 */
u32 gotrace_ann_strings(struct gotrace_ann *a)
{
	/* Pairs with the release in gotrace_ann_intern(). */
	return smp_load_acquire(&a->nr_strs);
}

/**
 * gotrace_ann_string - a string of the annotations
 * @a: the annotations
 * @i: below a count gotrace_ann_strings() returned
 *
 * Return: the string, NUL-terminated.
 */
const char *gotrace_ann_string(struct gotrace_ann *a, u32 i)
{
	return a->arena + a->str_off[i];
}

/**
 * gotrace_ann_escape - a string as the trace shows it
 * @dst: where it goes
 * @src: the bytes user space gave (in kernel memory)
 * @len: how many
 *
 * Valid UTF-8 is kept; NUL and each byte that is not part of valid UTF-8
 * become the four characters \xNN. What does not fit in
 * GOTRACE_ANNOTATE_STR_MAX bytes is left out: the return value says where.
 *
 * Return: bytes of @src taken, @len when all fit.
 */
size_t gotrace_ann_escape(struct gotrace_ann_str *dst, const u8 *src,
			  size_t len)
{
	size_t i = 0, n, out = 0;

	while (i < len) {
		n = src[i] < 0x80 ? src[i] != 0 : gotrace_utf8_len(src + i, len - i);
		if (n) {
			if (out + n > GOTRACE_ANNOTATE_STR_MAX)
				break;
			memcpy(dst->buf + out, src + i, n);
			out += n;
			i += n;
			continue;
		}
		if (out + 4 > GOTRACE_ANNOTATE_STR_MAX)
			break;
		out += snprintf(dst->buf + out, 5, "\\x%02x", src[i]);
		i++;
	}
	dst->buf[out] = 0;
	dst->len = out;
	return i;
}

/* The string of id @id: GOTRACE_STR_USER(i), or 0 for the empty one. */
static const char *gotrace_ann_id_string(struct gotrace_ann *a, u32 id)
{
	return id ? gotrace_ann_string(a, id - GOTRACE_STR_USER(0)) : "";
}

/*
 * The string id of @str, added if new; 0 for the empty string. -ENOSPC
 * once the strings have no room.
 */
static int gotrace_ann_intern(struct gotrace_ann *a,
			      const struct gotrace_ann_str *str, u32 *id)
{
	u32 idx, i, n;

	lockdep_assert_held(&a->lock);
	*id = 0;
	if (!str->len)
		return 0;
	idx = jhash(str->buf, str->len, 0) % GOTRACE_ANN_SLOTS;
	for (i = 0; i < GOTRACE_ANN_SLOTS; i++) {
		u16 slot = a->slots[idx];

		if (!slot)
			break;
		if (!strcmp(a->arena + a->str_off[slot - 1], str->buf)) {
			*id = GOTRACE_STR_USER(slot - 1);
			return 0;
		}
		if (++idx == GOTRACE_ANN_SLOTS)
			idx = 0;
	}
	n = a->nr_strs;
	if (n == GOTRACE_ANNOTATE_STRINGS ||
	    a->bytes + str->len + 1 > GOTRACE_ANNOTATE_STR_BYTES)
		return -ENOSPC;
	a->str_off[n] = a->bytes;
	memcpy(a->arena + a->bytes, str->buf, str->len + 1);
	a->bytes += str->len + 1;
	a->slots[idx] = n + 1;
	/* The string before its count: pairs with gotrace_ann_strings(). */
	smp_store_release(&a->nr_strs, n + 1);
	*id = GOTRACE_STR_USER(n);
	return 0;
}

/**
 * struct gotrace_ann_ev - an annotation event to write
 * @type:	its type in the format before Go 1.22.
 * @type2:	its type since Go 1.22.
 * @args:	its arguments after the time stamp, the stack last (set by
 *		gotrace_ann_record()).
 * @nargs:	how many.
 * @value:	a UserLog's message: before Go 1.22 written inline after
 *		the event, since then a string id in @args; NULL otherwise.
 */
struct gotrace_ann_ev {
	enum gotrace_ev type;
	enum gotrace2_ev type2;
	u64 args[5];
	unsigned int nargs;
	const struct gotrace_ann_str *value;
};

/* Write @ev into @c's buffer, interrupts off; false when it is full. */
static bool gotrace_ann_emit(struct gotrace_session *s, struct gotrace_cpu *c,
			     const struct gotrace_ann_ev *ev)
{
	struct gotrace_ring *r = &c->ring;
	unsigned int n = 1;
	u64 ts = gotrace_clock(s);
	u8 *p;

	/* Since Go 1.22 a value is a string of the tables, not in the event. */
	if (s->v2)
		return gotrace_emit2(r, ts, ev->type2, ev->nargs, ev->args);
	if (!ev->value)
		return gotrace_emit(r, ts, ev->type, ev->nargs, ev->args, false);
	/* The event, its value's length and bytes: in GOTRACE_EV_MAX units. */
	n += DIV_ROUND_UP(ev->value->len + 2, GOTRACE_EV_MAX);
	if (!gotrace_buf_reserve(r, &ts, n, false, &p))
		return false;
	p = gotrace_put_event(p, ev->type, ts - r->last_ts, ev->nargs, ev->args);
	p = gotrace_put_uvarint(p, ev->value->len);
	memcpy(p, ev->value->buf, ev->value->len);
	gotrace_buf_advance(r, p + ev->value->len, ts, 1);
	return true;
}

/* A step of an annotation, under the lock: its event in @ev, or an error. */
typedef int (*gotrace_ann_prep_fn)(struct gotrace_ann *a, void *arg,
				   bool v2, struct gotrace_ann_ev *ev);
/* Once the event is written: the state change. */
typedef void (*gotrace_ann_commit_fn)(struct gotrace_ann *a, void *arg);

/*
 * Record an annotation of the calling thread: with interrupts off, in the
 * session being recorded, on this CPU, whose P runs the thread.
 */
static int gotrace_ann_record(gotrace_ann_prep_fn prep,
			      gotrace_ann_commit_fn commit, void *arg)
{
	struct gotrace_ann_ev ev = {};
	struct gotrace_session *s;
	struct gotrace_cpu *c;
	unsigned long flags;
	int ret = -ENODATA;

	local_irq_save(flags);
	c = gotrace_probes_self(&s);
	if (!c)
		goto out;
	spin_lock(&s->ann->lock);
	ret = prep(s->ann, arg, s->v2, &ev);
	/*
	 * Its stack, last: the thread's program, as a goroutine's creation
	 * has (Go's old viewer groups regions by their stack's first frame).
	 */
	if (!ret)
		ev.args[ev.nargs - 1] = gotrace_stack(s->stacks, c->cur_t->prog,
						      GOTRACE_R_THREAD);
	if (!ret && !gotrace_ann_emit(s, c, &ev)) {
		gotrace_cut(s, c, gotrace_clock(s));
		ret = -ENODATA;
	}
	if (!ret && commit)
		commit(s->ann, arg);
	spin_unlock(&s->ann->lock);
out:
	local_irq_restore(flags);
	return ret;
}

struct gotrace_ann_task_arg {
	u64 parent;
	const struct gotrace_ann_str *name;
	u64 id;
};

static int gotrace_ann_task_begin_prep(struct gotrace_ann *a, void *arg,
				       bool v2, struct gotrace_ann_ev *ev)
{
	struct gotrace_ann_task_arg *ta = arg;
	u32 name;
	int ret;

	if (a->tasks == GOTRACE_ANNOTATE_TASKS)
		return -ENOSPC;
	ret = gotrace_ann_intern(a, ta->name, &name);
	if (ret)
		return ret;
	ta->id = a->tasks + 1;
	*ev = (struct gotrace_ann_ev) {
		.type = GO_EV_USER_TASK_CREATE,
		.type2 = GO2_EV_USER_TASK_BEGIN,
		.args = { ta->id, ta->parent, name, 0 },
		.nargs = 4,
	};
	return 0;
}

static void gotrace_ann_task_begin_commit(struct gotrace_ann *a, void *arg)
{
	a->tasks++;
	__set_bit(a->tasks - 1, a->open);
}

/**
 * gotrace_ann_task_begin - begin a task
 * @parent: its parent's id, 0 for none
 * @name: its name
 * @id: set to its id
 *
 * Return: 0; -ENODATA when the calling thread is not being recorded; or
 * -ENOSPC when the session's tasks or strings have no room.
 */
int gotrace_ann_task_begin(u64 parent, const struct gotrace_ann_str *name,
			   u64 *id)
{
	struct gotrace_ann_task_arg ta = { .parent = parent, .name = name };
	int ret;

	ret = gotrace_ann_record(gotrace_ann_task_begin_prep,
				 gotrace_ann_task_begin_commit, &ta);
	*id = ta.id;
	return ret;
}

static int gotrace_ann_task_end_prep(struct gotrace_ann *a, void *arg,
				     bool v2, struct gotrace_ann_ev *ev)
{
	u64 id = *(u64 *)arg;

	if (!id || id > a->tasks || !test_bit(id - 1, a->open))
		return -ENOENT;
	*ev = (struct gotrace_ann_ev) {
		.type = GO_EV_USER_TASK_END,
		.type2 = GO2_EV_USER_TASK_END,
		.args = { id, 0 },
		.nargs = 2,
	};
	return 0;
}

static void gotrace_ann_task_end_commit(struct gotrace_ann *a, void *arg)
{
	__clear_bit(*(u64 *)arg - 1, a->open);
}

/**
 * gotrace_ann_task_end - end a task
 * @id: its id
 *
 * Return: 0; -ENODATA as gotrace_ann_task_begin(); -ENOENT if the session
 * began no task @id or it has ended.
 */
int gotrace_ann_task_end(u64 id)
{
	return gotrace_ann_record(gotrace_ann_task_end_prep,
				  gotrace_ann_task_end_commit, &id);
}

/*
 * A UserRegion event (@mode 0: begin, 1: end); since Go 1.22 UserRegionBegin
 * or UserRegionEnd, which have no mode.
 */
static void gotrace_ann_region_ev(struct gotrace_ann_ev *ev, bool v2, u64 task,
				  u64 mode, u32 name)
{
	ev->type = GO_EV_USER_REGION;
	ev->type2 = mode ? GO2_EV_USER_REGION_END : GO2_EV_USER_REGION_BEGIN;
	ev->args[0] = task;
	/* Since 1.22 the event type says begin or end; a mode before. */
	if (v2) {
		ev->args[1] = name;
		ev->nargs = 3;
	} else {
		ev->args[1] = mode;
		ev->args[2] = name;
		ev->nargs = 4;
	}
}

struct gotrace_ann_region_arg {
	u64 task;
	const struct gotrace_ann_str *name;
	u16 *link;
	u32 name_id;
};

/* The head of the calling thread's bucket of open regions. */
static u16 *gotrace_ann_rbucket(struct gotrace_ann *a)
{
	return &a->rbucket[hash_32(current->pid, GOTRACE_ANN_RBITS)];
}

/*
 * The link to the calling thread's innermost open region in its bucket's
 * list, or to the list's end (0) if it has none. Entries of threads that
 * held its id before it (and exited) are freed on the way: a bucket holds
 * GOTRACE_ANNOTATE_REGIONS >> GOTRACE_ANN_RBITS entries on average when
 * the table is full, fewer otherwise.
 */
static u16 *gotrace_ann_innermost(struct gotrace_ann *a)
{
	u16 *link = gotrace_ann_rbucket(a);
	u32 tag = gotrace_tag(current);
	struct gotrace_ann_region *r;
	u16 i;

	lockdep_assert_held(&a->lock);
	while ((i = *link)) {
		r = &a->regions[i - 1];
		if (r->pid == current->pid && r->tag == tag)
			break;
		if (r->pid != current->pid) {
			link = &r->next;
			continue;
		}
		*link = r->next;
		r->next = a->rfree;
		a->rfree = i;
	}
	return link;
}

static int gotrace_ann_region_begin_prep(struct gotrace_ann *a, void *arg,
					 bool v2, struct gotrace_ann_ev *ev)
{
	struct gotrace_ann_region_arg *ra = arg;
	int ret;

	/* Frees what earlier holders of the thread's id left open. */
	gotrace_ann_innermost(a);
	if (!a->rfree)
		return -ENOSPC;
	ret = gotrace_ann_intern(a, ra->name, &ra->name_id);
	if (ret)
		return ret;
	gotrace_ann_region_ev(ev, v2, ra->task, 0, ra->name_id);
	return 0;
}

static void gotrace_ann_region_begin_commit(struct gotrace_ann *a, void *arg)
{
	struct gotrace_ann_region_arg *ra = arg;
	u16 *head = gotrace_ann_rbucket(a);
	u16 i = a->rfree;
	struct gotrace_ann_region *r = &a->regions[i - 1];

	a->rfree = r->next;
	*r = (struct gotrace_ann_region) {
		.pid = current->pid,
		.tag = gotrace_tag(current),
		.task = ra->task,
		.name = ra->name_id,
		.next = *head,
	};
	*head = i;
}

/**
 * gotrace_ann_region_begin - begin a region on the calling thread
 * @task: the task it belongs to, 0 for none
 * @name: its name
 *
 * Return: 0; -ENODATA as gotrace_ann_task_begin(); -ENOSPC when
 * GOTRACE_ANNOTATE_REGIONS regions are open or the strings have no room.
 */
int gotrace_ann_region_begin(u64 task, const struct gotrace_ann_str *name)
{
	struct gotrace_ann_region_arg ra = { .task = task, .name = name };

	return gotrace_ann_record(gotrace_ann_region_begin_prep,
				  gotrace_ann_region_begin_commit, &ra);
}

static int gotrace_ann_region_end_prep(struct gotrace_ann *a, void *arg,
				       bool v2, struct gotrace_ann_ev *ev)
{
	struct gotrace_ann_region_arg *ra = arg;
	u16 *link = gotrace_ann_innermost(a);
	struct gotrace_ann_region *r;

	if (!*link)
		return -ENOENT;
	r = &a->regions[*link - 1];
	if (ra->name && strcmp(gotrace_ann_id_string(a, r->name), ra->name->buf))
		return -EINVAL;
	ra->link = link;
	gotrace_ann_region_ev(ev, v2, r->task, 1, r->name);
	return 0;
}

static void gotrace_ann_region_end_commit(struct gotrace_ann *a, void *arg)
{
	struct gotrace_ann_region_arg *ra = arg;
	u16 i = *ra->link;

	/* Unlinked from its bucket, onto the free list. */
	*ra->link = a->regions[i - 1].next;
	a->regions[i - 1].next = a->rfree;
	a->rfree = i;
}

/**
 * gotrace_ann_region_end - end the calling thread's innermost region
 * @name: its name, or NULL not to check it
 *
 * Return: 0; -ENODATA as gotrace_ann_task_begin(); -ENOENT if the thread
 * has no region open; -EINVAL if @name is not the innermost region's.
 */
int gotrace_ann_region_end(const struct gotrace_ann_str *name)
{
	struct gotrace_ann_region_arg ra = { .name = name };

	return gotrace_ann_record(gotrace_ann_region_end_prep,
				  gotrace_ann_region_end_commit, &ra);
}

struct gotrace_ann_log_arg {
	u64 task;
	const struct gotrace_ann_str *category;
	const struct gotrace_ann_str *message;
};

static int gotrace_ann_log_prep(struct gotrace_ann *a, void *arg,
				bool v2, struct gotrace_ann_ev *ev)
{
	struct gotrace_ann_log_arg *la = arg;
	u32 key, value = 0;
	int ret;

	ret = gotrace_ann_intern(a, la->category, &key);
	if (ret)
		return ret;
	*ev = (struct gotrace_ann_ev) {
		.type = GO_EV_USER_LOG,
		.type2 = GO2_EV_USER_LOG,
		.args = { la->task, key, 0 },
		.nargs = 3,
		.value = la->message,
	};
	if (!v2)
		return 0;
	/* Since Go 1.22 the message is a string of the tables. */
	ret = gotrace_ann_intern(a, la->message, &value);
	ev->args[2] = value;
	ev->nargs = 4;
	return ret;
}

/**
 * gotrace_ann_log - record a log message on the calling thread
 * @task: the task it belongs to, 0 for none
 * @category: its category, maybe empty
 * @message: the message
 *
 * Return: 0; -ENODATA as gotrace_ann_task_begin(); -ENOSPC when the strings
 * have no room.
 */
int gotrace_ann_log(u64 task, const struct gotrace_ann_str *category,
		    const struct gotrace_ann_str *message)
{
	struct gotrace_ann_log_arg la = {
		.task = task, .category = category, .message = message,
	};

	return gotrace_ann_record(gotrace_ann_log_prep, NULL, &la);
}
