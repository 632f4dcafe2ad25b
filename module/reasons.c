// SPDX-License-Identifier: GPL-2.0
/*
 * gotrace reasons: why a thread waits, read cheaply from the task itself.
 *
 * A user thread that blocks inside a system call has the call's number in
 * its saved user registers (orig_ax on x86, which entries from exceptions
 * and interrupts set negative); that number says what it waits for. No
 * syscall tracepoint is used: those would slow every system call on the
 * machine.
 */

#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "reasons.h"

/*
 * Every x86-64 system call by name, indexed by number, as in
 * arch/x86/entry/syscalls/syscall_64.tbl (x32 numbers are not below
 * GOTRACE_NR_SYSCALLS). Those a thread commonly blocks in have a class; the
 * class of the rest is GOTRACE_C_SYSCALL (0). Calls added after Linux 5.10
 * are named by number, which the oldest headers the module builds with do
 * not define (x86-64 numbers never change); a number without a name prints
 * as "syscall N".
 */
const struct gotrace_syscall gotrace_syscalls[GOTRACE_NR_SYSCALLS] = {
	[__NR_read] = { "read" },
	[__NR_write] = { "write" },
	[__NR_open] = { "open" },
	[__NR_close] = { "close" },
	[__NR_stat] = { "stat" },
	[__NR_fstat] = { "fstat" },
	[__NR_lstat] = { "lstat" },
	[__NR_poll] = { "poll", GOTRACE_C_NET },
	[__NR_lseek] = { "lseek" },
	[__NR_mmap] = { "mmap" },
	[__NR_mprotect] = { "mprotect" },
	[__NR_munmap] = { "munmap" },
	[__NR_brk] = { "brk" },
	[__NR_rt_sigaction] = { "rt_sigaction" },
	[__NR_rt_sigprocmask] = { "rt_sigprocmask" },
	[__NR_rt_sigreturn] = { "rt_sigreturn" },
	[__NR_ioctl] = { "ioctl" },
	[__NR_pread64] = { "pread64" },
	[__NR_pwrite64] = { "pwrite64" },
	[__NR_readv] = { "readv" },
	[__NR_writev] = { "writev" },
	[__NR_access] = { "access" },
	[__NR_pipe] = { "pipe" },
	[__NR_select] = { "select", GOTRACE_C_NET },
	[__NR_sched_yield] = { "sched_yield" },
	[__NR_mremap] = { "mremap" },
	[__NR_msync] = { "msync" },
	[__NR_mincore] = { "mincore" },
	[__NR_madvise] = { "madvise" },
	[__NR_shmget] = { "shmget" },
	[__NR_shmat] = { "shmat" },
	[__NR_shmctl] = { "shmctl" },
	[__NR_dup] = { "dup" },
	[__NR_dup2] = { "dup2" },
	[__NR_pause] = { "pause" },
	[__NR_nanosleep] = { "nanosleep", GOTRACE_C_SLEEP },
	[__NR_getitimer] = { "getitimer" },
	[__NR_alarm] = { "alarm" },
	[__NR_setitimer] = { "setitimer" },
	[__NR_getpid] = { "getpid" },
	[__NR_sendfile] = { "sendfile" },
	[__NR_socket] = { "socket" },
	[__NR_connect] = { "connect", GOTRACE_C_NET },
	[__NR_accept] = { "accept", GOTRACE_C_NET },
	[__NR_sendto] = { "sendto", GOTRACE_C_NET },
	[__NR_recvfrom] = { "recvfrom", GOTRACE_C_NET },
	[__NR_sendmsg] = { "sendmsg", GOTRACE_C_NET },
	[__NR_recvmsg] = { "recvmsg", GOTRACE_C_NET },
	[__NR_shutdown] = { "shutdown" },
	[__NR_bind] = { "bind" },
	[__NR_listen] = { "listen" },
	[__NR_getsockname] = { "getsockname" },
	[__NR_getpeername] = { "getpeername" },
	[__NR_socketpair] = { "socketpair" },
	[__NR_setsockopt] = { "setsockopt" },
	[__NR_getsockopt] = { "getsockopt" },
	[__NR_clone] = { "clone" },
	[__NR_fork] = { "fork" },
	[__NR_vfork] = { "vfork" },
	[__NR_execve] = { "execve" },
	[__NR_exit] = { "exit" },
	[__NR_wait4] = { "wait4" },
	[__NR_kill] = { "kill" },
	[__NR_uname] = { "uname" },
	[__NR_semget] = { "semget" },
	[__NR_semop] = { "semop" },
	[__NR_semctl] = { "semctl" },
	[__NR_shmdt] = { "shmdt" },
	[__NR_msgget] = { "msgget" },
	[__NR_msgsnd] = { "msgsnd" },
	[__NR_msgrcv] = { "msgrcv" },
	[__NR_msgctl] = { "msgctl" },
	[__NR_fcntl] = { "fcntl" },
	[__NR_flock] = { "flock" },
	[__NR_fsync] = { "fsync" },
	[__NR_fdatasync] = { "fdatasync" },
	[__NR_truncate] = { "truncate" },
	[__NR_ftruncate] = { "ftruncate" },
	[__NR_getdents] = { "getdents" },
	[__NR_getcwd] = { "getcwd" },
	[__NR_chdir] = { "chdir" },
	[__NR_fchdir] = { "fchdir" },
	[__NR_rename] = { "rename" },
	[__NR_mkdir] = { "mkdir" },
	[__NR_rmdir] = { "rmdir" },
	[__NR_creat] = { "creat" },
	[__NR_link] = { "link" },
	[__NR_unlink] = { "unlink" },
	[__NR_symlink] = { "symlink" },
	[__NR_readlink] = { "readlink" },
	[__NR_chmod] = { "chmod" },
	[__NR_fchmod] = { "fchmod" },
	[__NR_chown] = { "chown" },
	[__NR_fchown] = { "fchown" },
	[__NR_lchown] = { "lchown" },
	[__NR_umask] = { "umask" },
	[__NR_gettimeofday] = { "gettimeofday" },
	[__NR_getrlimit] = { "getrlimit" },
	[__NR_getrusage] = { "getrusage" },
	[__NR_sysinfo] = { "sysinfo" },
	[__NR_times] = { "times" },
	[__NR_ptrace] = { "ptrace" },
	[__NR_getuid] = { "getuid" },
	[__NR_syslog] = { "syslog" },
	[__NR_getgid] = { "getgid" },
	[__NR_setuid] = { "setuid" },
	[__NR_setgid] = { "setgid" },
	[__NR_geteuid] = { "geteuid" },
	[__NR_getegid] = { "getegid" },
	[__NR_setpgid] = { "setpgid" },
	[__NR_getppid] = { "getppid" },
	[__NR_getpgrp] = { "getpgrp" },
	[__NR_setsid] = { "setsid" },
	[__NR_setreuid] = { "setreuid" },
	[__NR_setregid] = { "setregid" },
	[__NR_getgroups] = { "getgroups" },
	[__NR_setgroups] = { "setgroups" },
	[__NR_setresuid] = { "setresuid" },
	[__NR_getresuid] = { "getresuid" },
	[__NR_setresgid] = { "setresgid" },
	[__NR_getresgid] = { "getresgid" },
	[__NR_getpgid] = { "getpgid" },
	[__NR_setfsuid] = { "setfsuid" },
	[__NR_setfsgid] = { "setfsgid" },
	[__NR_getsid] = { "getsid" },
	[__NR_capget] = { "capget" },
	[__NR_capset] = { "capset" },
	[__NR_rt_sigpending] = { "rt_sigpending" },
	[__NR_rt_sigtimedwait] = { "rt_sigtimedwait" },
	[__NR_rt_sigqueueinfo] = { "rt_sigqueueinfo" },
	[__NR_rt_sigsuspend] = { "rt_sigsuspend" },
	[__NR_sigaltstack] = { "sigaltstack" },
	[__NR_utime] = { "utime" },
	[__NR_mknod] = { "mknod" },
	[__NR_uselib] = { "uselib" },
	[__NR_personality] = { "personality" },
	[__NR_ustat] = { "ustat" },
	[__NR_statfs] = { "statfs" },
	[__NR_fstatfs] = { "fstatfs" },
	[__NR_sysfs] = { "sysfs" },
	[__NR_getpriority] = { "getpriority" },
	[__NR_setpriority] = { "setpriority" },
	[__NR_sched_setparam] = { "sched_setparam" },
	[__NR_sched_getparam] = { "sched_getparam" },
	[__NR_sched_setscheduler] = { "sched_setscheduler" },
	[__NR_sched_getscheduler] = { "sched_getscheduler" },
	[__NR_sched_get_priority_max] = { "sched_get_priority_max" },
	[__NR_sched_get_priority_min] = { "sched_get_priority_min" },
	[__NR_sched_rr_get_interval] = { "sched_rr_get_interval" },
	[__NR_mlock] = { "mlock" },
	[__NR_munlock] = { "munlock" },
	[__NR_mlockall] = { "mlockall" },
	[__NR_munlockall] = { "munlockall" },
	[__NR_vhangup] = { "vhangup" },
	[__NR_modify_ldt] = { "modify_ldt" },
	[__NR_pivot_root] = { "pivot_root" },
	[__NR__sysctl] = { "_sysctl" },
	[__NR_prctl] = { "prctl" },
	[__NR_arch_prctl] = { "arch_prctl" },
	[__NR_adjtimex] = { "adjtimex" },
	[__NR_setrlimit] = { "setrlimit" },
	[__NR_chroot] = { "chroot" },
	[__NR_sync] = { "sync" },
	[__NR_acct] = { "acct" },
	[__NR_settimeofday] = { "settimeofday" },
	[__NR_mount] = { "mount" },
	[__NR_umount2] = { "umount2" },
	[__NR_swapon] = { "swapon" },
	[__NR_swapoff] = { "swapoff" },
	[__NR_reboot] = { "reboot" },
	[__NR_sethostname] = { "sethostname" },
	[__NR_setdomainname] = { "setdomainname" },
	[__NR_iopl] = { "iopl" },
	[__NR_ioperm] = { "ioperm" },
	[__NR_create_module] = { "create_module" },
	[__NR_init_module] = { "init_module" },
	[__NR_delete_module] = { "delete_module" },
	[__NR_get_kernel_syms] = { "get_kernel_syms" },
	[__NR_query_module] = { "query_module" },
	[__NR_quotactl] = { "quotactl" },
	[__NR_nfsservctl] = { "nfsservctl" },
	[__NR_getpmsg] = { "getpmsg" },
	[__NR_putpmsg] = { "putpmsg" },
	[__NR_afs_syscall] = { "afs_syscall" },
	[__NR_tuxcall] = { "tuxcall" },
	[__NR_security] = { "security" },
	[__NR_gettid] = { "gettid" },
	[__NR_readahead] = { "readahead" },
	[__NR_setxattr] = { "setxattr" },
	[__NR_lsetxattr] = { "lsetxattr" },
	[__NR_fsetxattr] = { "fsetxattr" },
	[__NR_getxattr] = { "getxattr" },
	[__NR_lgetxattr] = { "lgetxattr" },
	[__NR_fgetxattr] = { "fgetxattr" },
	[__NR_listxattr] = { "listxattr" },
	[__NR_llistxattr] = { "llistxattr" },
	[__NR_flistxattr] = { "flistxattr" },
	[__NR_removexattr] = { "removexattr" },
	[__NR_lremovexattr] = { "lremovexattr" },
	[__NR_fremovexattr] = { "fremovexattr" },
	[__NR_tkill] = { "tkill" },
	[__NR_time] = { "time" },
	[__NR_futex] = { "futex", GOTRACE_C_SYNC },
	[__NR_sched_setaffinity] = { "sched_setaffinity" },
	[__NR_sched_getaffinity] = { "sched_getaffinity" },
	[__NR_set_thread_area] = { "set_thread_area" },
	[__NR_io_setup] = { "io_setup" },
	[__NR_io_destroy] = { "io_destroy" },
	[__NR_io_getevents] = { "io_getevents" },
	[__NR_io_submit] = { "io_submit" },
	[__NR_io_cancel] = { "io_cancel" },
	[__NR_get_thread_area] = { "get_thread_area" },
	[__NR_lookup_dcookie] = { "lookup_dcookie" },
	[__NR_epoll_create] = { "epoll_create" },
	[__NR_epoll_ctl_old] = { "epoll_ctl_old" },
	[__NR_epoll_wait_old] = { "epoll_wait_old" },
	[__NR_remap_file_pages] = { "remap_file_pages" },
	[__NR_getdents64] = { "getdents64" },
	[__NR_set_tid_address] = { "set_tid_address" },
	[__NR_restart_syscall] = { "restart_syscall" },
	[__NR_semtimedop] = { "semtimedop" },
	[__NR_fadvise64] = { "fadvise64" },
	[__NR_timer_create] = { "timer_create" },
	[__NR_timer_settime] = { "timer_settime" },
	[__NR_timer_gettime] = { "timer_gettime" },
	[__NR_timer_getoverrun] = { "timer_getoverrun" },
	[__NR_timer_delete] = { "timer_delete" },
	[__NR_clock_settime] = { "clock_settime" },
	[__NR_clock_gettime] = { "clock_gettime" },
	[__NR_clock_getres] = { "clock_getres" },
	[__NR_clock_nanosleep] = { "clock_nanosleep", GOTRACE_C_SLEEP },
	[__NR_exit_group] = { "exit_group" },
	[__NR_epoll_wait] = { "epoll_wait", GOTRACE_C_NET },
	[__NR_epoll_ctl] = { "epoll_ctl" },
	[__NR_tgkill] = { "tgkill" },
	[__NR_utimes] = { "utimes" },
	[__NR_vserver] = { "vserver" },
	[__NR_mbind] = { "mbind" },
	[__NR_set_mempolicy] = { "set_mempolicy" },
	[__NR_get_mempolicy] = { "get_mempolicy" },
	[__NR_mq_open] = { "mq_open" },
	[__NR_mq_unlink] = { "mq_unlink" },
	[__NR_mq_timedsend] = { "mq_timedsend" },
	[__NR_mq_timedreceive] = { "mq_timedreceive" },
	[__NR_mq_notify] = { "mq_notify" },
	[__NR_mq_getsetattr] = { "mq_getsetattr" },
	[__NR_kexec_load] = { "kexec_load" },
	[__NR_waitid] = { "waitid" },
	[__NR_add_key] = { "add_key" },
	[__NR_request_key] = { "request_key" },
	[__NR_keyctl] = { "keyctl" },
	[__NR_ioprio_set] = { "ioprio_set" },
	[__NR_ioprio_get] = { "ioprio_get" },
	[__NR_inotify_init] = { "inotify_init" },
	[__NR_inotify_add_watch] = { "inotify_add_watch" },
	[__NR_inotify_rm_watch] = { "inotify_rm_watch" },
	[__NR_migrate_pages] = { "migrate_pages" },
	[__NR_openat] = { "openat" },
	[__NR_mkdirat] = { "mkdirat" },
	[__NR_mknodat] = { "mknodat" },
	[__NR_fchownat] = { "fchownat" },
	[__NR_futimesat] = { "futimesat" },
	[__NR_newfstatat] = { "newfstatat" },
	[__NR_unlinkat] = { "unlinkat" },
	[__NR_renameat] = { "renameat" },
	[__NR_linkat] = { "linkat" },
	[__NR_symlinkat] = { "symlinkat" },
	[__NR_readlinkat] = { "readlinkat" },
	[__NR_fchmodat] = { "fchmodat" },
	[__NR_faccessat] = { "faccessat" },
	[__NR_pselect6] = { "pselect6", GOTRACE_C_NET },
	[__NR_ppoll] = { "ppoll", GOTRACE_C_NET },
	[__NR_unshare] = { "unshare" },
	[__NR_set_robust_list] = { "set_robust_list" },
	[__NR_get_robust_list] = { "get_robust_list" },
	[__NR_splice] = { "splice" },
	[__NR_tee] = { "tee" },
	[__NR_sync_file_range] = { "sync_file_range" },
	[__NR_vmsplice] = { "vmsplice" },
	[__NR_move_pages] = { "move_pages" },
	[__NR_utimensat] = { "utimensat" },
	[__NR_epoll_pwait] = { "epoll_pwait", GOTRACE_C_NET },
	[__NR_signalfd] = { "signalfd" },
	[__NR_timerfd_create] = { "timerfd_create" },
	[__NR_eventfd] = { "eventfd" },
	[__NR_fallocate] = { "fallocate" },
	[__NR_timerfd_settime] = { "timerfd_settime" },
	[__NR_timerfd_gettime] = { "timerfd_gettime" },
	[__NR_accept4] = { "accept4", GOTRACE_C_NET },
	[__NR_signalfd4] = { "signalfd4" },
	[__NR_eventfd2] = { "eventfd2" },
	[__NR_epoll_create1] = { "epoll_create1" },
	[__NR_dup3] = { "dup3" },
	[__NR_pipe2] = { "pipe2" },
	[__NR_inotify_init1] = { "inotify_init1" },
	[__NR_preadv] = { "preadv" },
	[__NR_pwritev] = { "pwritev" },
	[__NR_rt_tgsigqueueinfo] = { "rt_tgsigqueueinfo" },
	[__NR_perf_event_open] = { "perf_event_open" },
	[__NR_recvmmsg] = { "recvmmsg", GOTRACE_C_NET },
	[__NR_fanotify_init] = { "fanotify_init" },
	[__NR_fanotify_mark] = { "fanotify_mark" },
	[__NR_prlimit64] = { "prlimit64" },
	[__NR_name_to_handle_at] = { "name_to_handle_at" },
	[__NR_open_by_handle_at] = { "open_by_handle_at" },
	[__NR_clock_adjtime] = { "clock_adjtime" },
	[__NR_syncfs] = { "syncfs" },
	[__NR_sendmmsg] = { "sendmmsg", GOTRACE_C_NET },
	[__NR_setns] = { "setns" },
	[__NR_getcpu] = { "getcpu" },
	[__NR_process_vm_readv] = { "process_vm_readv" },
	[__NR_process_vm_writev] = { "process_vm_writev" },
	[__NR_kcmp] = { "kcmp" },
	[__NR_finit_module] = { "finit_module" },
	[__NR_sched_setattr] = { "sched_setattr" },
	[__NR_sched_getattr] = { "sched_getattr" },
	[__NR_renameat2] = { "renameat2" },
	[__NR_seccomp] = { "seccomp" },
	[__NR_getrandom] = { "getrandom" },
	[__NR_memfd_create] = { "memfd_create" },
	[__NR_kexec_file_load] = { "kexec_file_load" },
	[__NR_bpf] = { "bpf" },
	[__NR_execveat] = { "execveat" },
	[__NR_userfaultfd] = { "userfaultfd" },
	[__NR_membarrier] = { "membarrier" },
	[__NR_mlock2] = { "mlock2" },
	[__NR_copy_file_range] = { "copy_file_range" },
	[__NR_preadv2] = { "preadv2" },
	[__NR_pwritev2] = { "pwritev2" },
	[__NR_pkey_mprotect] = { "pkey_mprotect" },
	[__NR_pkey_alloc] = { "pkey_alloc" },
	[__NR_pkey_free] = { "pkey_free" },
	[__NR_statx] = { "statx" },
	[__NR_io_pgetevents] = { "io_pgetevents" },
	[__NR_rseq] = { "rseq" },
	[335] = { "uretprobe" },
	[336] = { "uprobe" },
	[__NR_pidfd_send_signal] = { "pidfd_send_signal" },
	[__NR_io_uring_setup] = { "io_uring_setup" },
	[__NR_io_uring_enter] = { "io_uring_enter" },
	[__NR_io_uring_register] = { "io_uring_register" },
	[__NR_open_tree] = { "open_tree" },
	[__NR_move_mount] = { "move_mount" },
	[__NR_fsopen] = { "fsopen" },
	[__NR_fsconfig] = { "fsconfig" },
	[__NR_fsmount] = { "fsmount" },
	[__NR_fspick] = { "fspick" },
	[__NR_pidfd_open] = { "pidfd_open" },
	[__NR_clone3] = { "clone3" },
	[__NR_close_range] = { "close_range" },
	[__NR_openat2] = { "openat2" },
	[__NR_pidfd_getfd] = { "pidfd_getfd" },
	[__NR_faccessat2] = { "faccessat2" },
	[__NR_process_madvise] = { "process_madvise" },
	[441] = { "epoll_pwait2", GOTRACE_C_NET },
	[442] = { "mount_setattr" },
	[443] = { "quotactl_fd" },
	[444] = { "landlock_create_ruleset" },
	[445] = { "landlock_add_rule" },
	[446] = { "landlock_restrict_self" },
	[447] = { "memfd_secret" },
	[448] = { "process_mrelease" },
	[449] = { "futex_waitv", GOTRACE_C_SYNC },
	[450] = { "set_mempolicy_home_node" },
	[451] = { "cachestat" },
	[452] = { "fchmodat2" },
	[453] = { "map_shadow_stack" },
	[454] = { "futex_wake", GOTRACE_C_SYNC },
	[455] = { "futex_wait", GOTRACE_C_SYNC },
	[456] = { "futex_requeue", GOTRACE_C_SYNC },
	[457] = { "statmount" },
	[458] = { "listmount" },
	[459] = { "lsm_get_self_attr" },
	[460] = { "lsm_set_self_attr" },
	[461] = { "lsm_list_modules" },
	[462] = { "mseal" },
	[463] = { "setxattrat" },
	[464] = { "getxattrat" },
	[465] = { "listxattrat" },
	[466] = { "removexattrat" },
	[467] = { "open_tree_attr" },
	[468] = { "file_getattr" },
	[469] = { "file_setattr" },
	[470] = { "listns" },
};

/* Names of the reasons that are not system calls. */
static const char *const gotrace_reason_names[] = {
	[GOTRACE_R_THREAD - GOTRACE_NR_SYSCALLS]	= "thread",
	[GOTRACE_R_FORK - GOTRACE_NR_SYSCALLS]		= "fork",
	[GOTRACE_R_RENAME - GOTRACE_NR_SYSCALLS]	= "exec or rename",
	[GOTRACE_R_PREEMPT - GOTRACE_NR_SYSCALLS]	= "preempted",
	[GOTRACE_R_KERNEL - GOTRACE_NR_SYSCALLS]	= "kernel wait",
	[GOTRACE_R_FAULT - GOTRACE_NR_SYSCALLS]		= "page fault or kernel wait",
	[GOTRACE_R_IRQ - GOTRACE_NR_SYSCALLS]		= "interrupt",
	[GOTRACE_R_SOFTIRQ - GOTRACE_NR_SYSCALLS]	= "softirq",
	[GOTRACE_R_FULL - GOTRACE_NR_SYSCALLS]		= "(stack table full)",
};

/**
 * gotrace_reason_name - the frame name of a reason
 * @reason: enum gotrace_reason or a system call number
 * @buf: room for "syscall 511"
 * @size: its size
 *
 * Return: the name of the reason or of the system call, or @buf holding
 * "syscall N" for a system call that has no name in gotrace_syscalls[].
 */
const char *gotrace_reason_name(u32 reason, char *buf, size_t size)
{
	if (reason >= GOTRACE_NR_SYSCALLS)
		return gotrace_reason_names[reason - GOTRACE_NR_SYSCALLS];
	if (gotrace_syscalls[reason].name)
		return gotrace_syscalls[reason].name;
	snprintf(buf, size, "syscall %u", reason);
	return buf;
}

/**
 * gotrace_reason_word - the reason a block or stop of formats 1.22 and
 * later carries, which Go's viewer shows and sorts its profiles by
 * @reason: enum gotrace_reason or a system call number
 * @buf: room for "sync: " and a system call's name or "syscall 511"
 * @size: its size
 *
 * Go's network profile takes the word "network" alone, its
 * synchronization profile any word with "sync" in it: a readiness wait or
 * socket call is "network", a futex is "sync: futex"; the stack
 * ([reason, program]) still names the call. Other calls are their name,
 * sched_yield "yield", and the other reasons their frame name.
 *
 * Return: the word, in @buf or a constant.
 */
const char *gotrace_reason_word(u32 reason, char *buf, size_t size)
{
	char name[16];

	if (reason >= GOTRACE_NR_SYSCALLS)
		return gotrace_reason_name(reason, buf, size);
	if (reason == __NR_sched_yield)
		return "yield";
	switch (gotrace_syscalls[reason].class) {
	case GOTRACE_C_NET:
		return "network";
	case GOTRACE_C_SYNC:
		snprintf(buf, size, "sync: %s",
			 gotrace_reason_name(reason, name, sizeof(name)));
		return buf;
	default:
		return gotrace_reason_name(reason, buf, size);
	}
}

/**
 * gotrace_waker_reason - what the current context is doing when it wakes
 * a thread: a system call, kernel work, or an interrupt
 *
 * Return: GOTRACE_R_IRQ in a hard interrupt or NMI, GOTRACE_R_SOFTIRQ while
 * serving a softirq, else the number of the system call current is in, else
 * GOTRACE_R_KERNEL in a kernel thread or GOTRACE_R_FAULT in a user thread.
 */
u32 gotrace_waker_reason(void)
{
	int nr;

	if (in_hardirq() || in_nmi())
		return GOTRACE_R_IRQ;
	if (in_serving_softirq())
		return GOTRACE_R_SOFTIRQ;
	nr = gotrace_syscall_of(current);
	if (nr >= 0)
		return nr;
	return current->flags & PF_KTHREAD ? GOTRACE_R_KERNEL : GOTRACE_R_FAULT;
}
