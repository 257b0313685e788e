/*
 * System V shared memory: shmget, shmat, shmdt, shmctl, as Linux's.
 *
 * A segment is an anonymous vm_object (no store: pages are zero until
 * written) that shmat maps MAP_SHARED, so every attach of every process
 * shares its pages, fork included.  The segment holds one reference to
 * its object and each map entry one more, so the number of attaches
 * (shm_nattch) is the object's reference count less one: it follows
 * fork, munmap, exit and exec without hooks in the VM system, and an
 * entry split in two counts twice, as Linux counts each VMA.
 *
 * IPC_RMID of an attached segment marks it SHM_DEST and makes its key
 * private; it is destroyed when the last attach goes.  Since that may
 * happen in munmap or exit, which do not call here, every shm call (and
 * /proc/sysvipc/shm) first destroys the marked segments nothing maps any
 * more (shm_reap): no caller can tell the difference.
 */
#include <limits.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>

#include "fs/procfs/procfs.h"
#include "kern/proc.h"
#include "kern/ucred.h"
#include "sys/syscall.h"
#include "sys/sysv_ipc.h"
#include "kern/kmem.h"
#include "vm/vm.h"
#include "vm/vm_object.h"

/* Linux's defaults (include/uapi/linux/shm.h). */
#define SHMMIN		1
#define SHMMNI		4096
#define SHMMAX_L	(ULONG_MAX - (1UL << 24))
#define SHMALL_L	(ULONG_MAX - (1UL << 24))
#define SHMLBA_L	PAGE_SIZE

#ifndef SHM_EXEC
#define SHM_EXEC	0100000
#endif
#ifndef SHM_REMAP
#define SHM_REMAP	040000
#endif
#ifndef SHM_STAT_ANY
#define SHM_STAT_ANY	15
#endif
#define SHM_DEST_MODE	01000	/* mode bits, as Linux's */
#define SHM_LOCKED_MODE	02000

struct shmseg {
	struct ipc_obj ss_perm;
	struct vm_object *ss_obj;
	uint64_t ss_size;
	int64_t ss_atime, ss_dtime;
	pid_t ss_cpid, ss_lpid;
};

/* Linux's struct shmid64_ds on x86-64. */
struct linux_shmid64_ds {
	struct linux_ipc64_perm shm_perm;
	uint64_t shm_segsz;
	int64_t shm_atime, shm_dtime, shm_ctime;
	int32_t shm_cpid, shm_lpid;
	uint64_t shm_nattch;
	uint64_t unused4, unused5;
};

struct linux_shminfo64 {
	uint64_t shmmax, shmmin, shmmni, shmseg, shmall;
	uint64_t unused1, unused2, unused3, unused4;
};

struct linux_shm_info {
	int32_t used_ids;
	uint64_t shm_tot, shm_rss, shm_swp, swap_attempts, swap_successes;
};

static struct ipc_ids shm_ids = { .ii_max = SHMMNI };

#define CR(lp)	((lp)->lwp_proc->p_ucred)

static uint64_t
shm_nattch(const struct shmseg *ss)
{
	return (uint64_t)(ss->ss_obj->ref_count - 1);
}

static void
shm_destroy(struct shmseg *ss)
{
	if (!ss->ss_perm.io_removed)
		ipc_rmid(&shm_ids, &ss->ss_perm);
	vm_object_deallocate(ss->ss_obj);
	kfree(ss);
}

void
shm_reap(void)
{
	for (int i = 0; i < shm_ids.ii_nslots; i++) {
		struct shmseg *ss = (struct shmseg *)shm_ids.ii_slots[i];
		if (ss != NULL && (ss->ss_perm.io_mode & SHM_DEST_MODE) &&
		    shm_nattch(ss) == 0)
			shm_destroy(ss);
	}
}

static struct shmseg *
shm_lookup(int id)
{
	return (struct shmseg *)ipc_lookup(&shm_ids, id);
}

static long
shm_newseg(struct lwp *lp, int key, uint64_t size, int flg)
{
	if (size < SHMMIN || size > SHMMAX_L)
		return -EINVAL;
	struct shmseg *ss = kmalloc(sizeof(*ss), KM_ZERO);
	if (ss == NULL)
		return -ENOMEM;
	if ((ss->ss_obj = vm_object_allocate_anon()) == NULL) {
		kfree(ss);
		return -ENOMEM;
	}
	int error = ipc_addid(&shm_ids, &ss->ss_perm, key, flg, CR(lp));
	if (error < 0) {
		vm_object_deallocate(ss->ss_obj);
		kfree(ss);
		return error;
	}
	ss->ss_size = size;
	ss->ss_cpid = lp->lwp_proc->p_pid;
	return ss->ss_perm.io_id;
}

/* shmget(key, size, shmflg) */
long
sys_shmget(struct lwp *lp, const uint64_t *args)
{
	int key = (int)args[0], flg = (int)args[2];
	uint64_t size = args[1];

	shm_reap();
	if (key == IPC_PRIVATE)
		return shm_newseg(lp, key, size, flg);
	struct shmseg *ss = (struct shmseg *)ipc_findkey(&shm_ids, key);
	if (ss == NULL)
		return (flg & IPC_CREAT) ? shm_newseg(lp, key, size, flg) : -ENOENT;
	if ((flg & IPC_CREAT) && (flg & IPC_EXCL))
		return -EEXIST;
	if (ss->ss_size < size)
		return -EINVAL;
	if (ipc_perms(CR(lp), &ss->ss_perm, flg) < 0)
		return -EACCES;
	return ss->ss_perm.io_id;
}

/* shmat(shmid, shmaddr, shmflg): the address of the attach. */
long
sys_shmat(struct lwp *lp, const uint64_t *args)
{
	int id = (int)args[0], flg = (int)args[2];
	uint64_t addr = args[1];
	int mflags = MAP_SHARED;

	shm_reap();
	if (id < 0)
		return -EINVAL;
	if (addr != 0) {
		if (addr & (SHMLBA_L - 1)) {
			if (!(flg & SHM_RND))
				return -EINVAL;
			addr &= ~(uint64_t)(SHMLBA_L - 1);
			if (addr == 0 && (flg & SHM_REMAP))
				return -EINVAL;
		}
		mflags |= (flg & SHM_REMAP) ? MAP_FIXED : MAP_FIXED_NOREPLACE;
	} else if (flg & SHM_REMAP) {
		return -EINVAL;
	}
	int prot = PROT_READ, acc = 0444, maxprot = PROT_READ | PROT_EXEC;
	if (!(flg & SHM_RDONLY)) {
		prot |= PROT_WRITE;
		acc |= 0222;
		maxprot |= PROT_WRITE;
	}
	if (flg & SHM_EXEC) {
		prot |= PROT_EXEC;
		acc |= 0111;
	}
	struct shmseg *ss = shm_lookup(id);
	if (ss == NULL)
		return -EINVAL;
	if (ipc_perms(CR(lp), &ss->ss_perm, acc) < 0)
		return -EACCES;
	long r = vm_mmap_maxprot(lp->lwp_proc->p_vmspace, addr, ss->ss_size,
	    prot, maxprot, mflags, ss->ss_obj, 0);
	if (r == -EEXIST)
		return -EINVAL;		/* Linux: the range is not free */
	if (r < 0)
		return r;
	ss->ss_atime = ipc_now();
	ss->ss_lpid = lp->lwp_proc->p_pid;
	return r;
}

/* The segment whose object is obj, or NULL. */
static struct shmseg *
shm_byobject(const struct vm_object *obj)
{
	for (int i = 0; i < shm_ids.ii_nslots; i++) {
		struct shmseg *ss = (struct shmseg *)shm_ids.ii_slots[i];
		if (ss != NULL && ss->ss_obj == obj)
			return ss;
	}
	return NULL;
}

/*
 * shmdt(shmaddr): as Linux, the first entry at or above shmaddr that maps
 * a segment from its start at shmaddr names the segment; every entry of
 * that segment in [shmaddr, shmaddr + size) goes.  -EINVAL if none.
 */
long
sys_shmdt(struct lwp *lp, const uint64_t *args)
{
	struct vmspace *vm = lp->lwp_proc->p_vmspace;
	struct vm_map *map = &vm->vm_map;
	uint64_t addr = args[0];
	struct vm_map_entry *e;

	shm_reap();
	if (addr & PAGE_MASK)
		return -EINVAL;
	if (!vm_map_lookup_entry(map, addr, &e))
		e = e->next;
	struct shmseg *ss = NULL;
	for (; e != VM_MAP_END(map); e = e->next) {
		if (e->object != NULL && e->start - e->offset == addr &&
		    (ss = shm_byobject(e->object)) != NULL)
			break;
	}
	if (ss == NULL)
		return -EINVAL;
	struct vm_object *obj = ss->ss_obj;
	uint64_t end = addr + roundup2(ss->ss_size, PAGE_SIZE);
	/* Entry by entry: munmap may merge or free what we walk. */
	for (;;) {
		if (!vm_map_lookup_entry(map, addr, &e))
			e = e->next;
		while (e != VM_MAP_END(map) && e->start < end && e->object != obj)
			e = e->next;
		if (e == VM_MAP_END(map) || e->start >= end)
			break;
		uint64_t s = e->start, t = MIN(e->end, end);
		int error = vm_munmap(vm, s, t - s);
		if (error < 0)
			return error;
		addr = t;
	}
	ss->ss_dtime = ipc_now();
	ss->ss_lpid = lp->lwp_proc->p_pid;
	shm_reap();
	return 0;
}

static void
shm_stat_out(const struct shmseg *ss, struct linux_shmid64_ds *ds)
{
	memset(ds, 0, sizeof(*ds));
	ipc_perm_out(&ss->ss_perm, &ds->shm_perm);
	ds->shm_segsz = ss->ss_size;
	ds->shm_atime = ss->ss_atime;
	ds->shm_dtime = ss->ss_dtime;
	ds->shm_ctime = ss->ss_perm.io_ctime;
	ds->shm_cpid = ss->ss_cpid;
	ds->shm_lpid = ss->ss_lpid;
	ds->shm_nattch = shm_nattch(ss);
}

/* The highest slot in use, as IPC_INFO and SHM_INFO return. */
static int
shm_maxslot(void)
{
	int max = -1;
	for (int i = 0; i < shm_ids.ii_nslots; i++)
		if (shm_ids.ii_slots[i] != NULL)
			max = i;
	return max < 0 ? 0 : max;
}

/* shmctl(shmid, cmd, buf) */
long
sys_shmctl(struct lwp *lp, const uint64_t *args)
{
	int id = (int)args[0], cmd = (int)args[1];
	uint64_t ubuf = args[2];
	struct ucred *cr = CR(lp);
	struct linux_shmid64_ds ds;

	shm_reap();
	if (cmd < 0 || id < 0)
		return -EINVAL;
	switch (cmd) {
	case IPC_INFO: {
		struct linux_shminfo64 si = { .shmmax = SHMMAX_L,
		    .shmmin = SHMMIN, .shmmni = SHMMNI, .shmseg = SHMMNI,
		    .shmall = SHMALL_L };
		if (copyout(&si, ubuf, sizeof(si)) < 0)
			return -EFAULT;
		return shm_maxslot();
	}
	case SHM_INFO: {
		struct linux_shm_info si = { .used_ids = shm_ids.ii_inuse };
		for (int i = 0; i < shm_ids.ii_nslots; i++) {
			struct shmseg *ss = (struct shmseg *)shm_ids.ii_slots[i];
			if (ss != NULL) {
				si.shm_tot += howmany(ss->ss_size, PAGE_SIZE);
				si.shm_rss += ss->ss_obj->resident_page_count;
			}
		}
		if (copyout(&si, ubuf, sizeof(si)) < 0)
			return -EFAULT;
		return shm_maxslot();
	}
	case SHM_STAT:
	case SHM_STAT_ANY: {
		/* id is a slot; the answer is the segment's identifier. */
		if (id >= shm_ids.ii_nslots || shm_ids.ii_slots[id] == NULL)
			return -EINVAL;
		struct shmseg *ss = (struct shmseg *)shm_ids.ii_slots[id];
		if (cmd == SHM_STAT && ipc_perms(cr, &ss->ss_perm, 0444) < 0)
			return -EACCES;
		shm_stat_out(ss, &ds);
		if (copyout(&ds, ubuf, sizeof(ds)) < 0)
			return -EFAULT;
		return ss->ss_perm.io_id;
	}
	case IPC_STAT:
	case IPC_SET:
	case IPC_RMID:
	case SHM_LOCK:
	case SHM_UNLOCK:
		break;
	default:
		return -EINVAL;
	}
	if (cmd == IPC_SET && copyin(ubuf, &ds, sizeof(ds)) < 0)
		return -EFAULT;
	struct shmseg *ss = shm_lookup(id);
	if (ss == NULL)
		return -EINVAL;
	switch (cmd) {
	case IPC_STAT:
		if (ipc_perms(cr, &ss->ss_perm, 0444) < 0)
			return -EACCES;
		shm_stat_out(ss, &ds);
		return copyout(&ds, ubuf, sizeof(ds)) < 0 ? -EFAULT : 0;
	case IPC_SET:
		if (!ipc_owner(cr, &ss->ss_perm))
			return -EPERM;
		ipc_perm_set(&ss->ss_perm, &ds.shm_perm);
		return 0;
	case IPC_RMID:
		if (!ipc_owner(cr, &ss->ss_perm))
			return -EPERM;
		if (shm_nattch(ss) == 0) {
			shm_destroy(ss);
		} else {
			ss->ss_perm.io_mode |= SHM_DEST_MODE;
			ss->ss_perm.io_key = IPC_PRIVATE;
		}
		return 0;
	default:	/* SHM_LOCK, SHM_UNLOCK: nothing is ever swapped out */
		if (!cred_is_root(cr) && cr->cr_uid != ss->ss_perm.io_uid &&
		    cr->cr_uid != ss->ss_perm.io_cuid)
			return -EPERM;
		if (cmd == SHM_LOCK)
			ss->ss_perm.io_mode |= SHM_LOCKED_MODE;
		else
			ss->ss_perm.io_mode &= ~SHM_LOCKED_MODE;
		return 0;
	}
}

/* /proc/sysvipc/shm, in Linux's columns (ipcs reads it). */
int
shm_procfs(struct sbuf *sb, struct proc *p)
{
	(void)p;
	sbuf_printf(sb, "       key      shmid perms                  size  cpid  "
	    "lpid nattch   uid   gid  cuid  cgid      atime      dtime      "
	    "ctime                   rss                  swap\n");
	for (int i = 0; i < shm_ids.ii_nslots; i++) {
		struct shmseg *ss = (struct shmseg *)shm_ids.ii_slots[i];
		if (ss == NULL)
			continue;
		const struct ipc_obj *io = &ss->ss_perm;
		sbuf_printf(sb, "%10d %10d  %4o %21lu %5d %5d  %5lu %5u %5u %5u "
		    "%5u %10ld %10ld %10ld %21lu %21d\n", io->io_key, io->io_id,
		    io->io_mode, (unsigned long)ss->ss_size, ss->ss_cpid,
		    ss->ss_lpid, (unsigned long)shm_nattch(ss), io->io_uid,
		    io->io_gid, io->io_cuid, io->io_cgid, (long)ss->ss_atime,
		    (long)ss->ss_dtime, (long)io->io_ctime,
		    (unsigned long)(ss->ss_obj->resident_page_count * PAGE_SIZE), 0);
	}
	return 0;
}
