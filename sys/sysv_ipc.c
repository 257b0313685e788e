/*
 * System V IPC identifiers and permissions (see sysv_ipc.h).
 */
#include <time.h>

#include "fs/procfs/procfs.h"
#include "kern/kernel.h"
#include "kern/thread.h"
#include "kern/ucred.h"
#include "sys/sysv_ipc.h"
#include "kern/kmem.h"

struct ipc_obj *
ipc_lookup(struct ipc_ids *ids, int id)
{
	if (id < 0)
		return NULL;
	int slot = id % IPC_SEQ_MULT;
	if (slot >= ids->ii_nslots)
		return NULL;
	struct ipc_obj *io = ids->ii_slots[slot];
	return io != NULL && io->io_id == id ? io : NULL;
}

struct ipc_obj *
ipc_findkey(struct ipc_ids *ids, int key)
{
	for (int i = 0; i < ids->ii_nslots; i++) {
		struct ipc_obj *io = ids->ii_slots[i];
		if (io != NULL && io->io_key == key)
			return io;
	}
	return NULL;
}

int
ipc_addid(struct ipc_ids *ids, struct ipc_obj *io, int key, int mode,
    const struct ucred *cr)
{
	if (ids->ii_inuse >= ids->ii_max)
		return -ENOSPC;
	int slot = 0;
	while (slot < ids->ii_nslots && ids->ii_slots[slot] != NULL)
		slot++;
	if (slot == ids->ii_nslots) {
		int n = MIN(MAX(2 * ids->ii_nslots, 16), ids->ii_max);
		struct ipc_obj **ns = kmalloc(n * sizeof(*ns), KM_ZERO);
		if (ns == NULL)
			return -ENOMEM;
		if (ids->ii_slots != NULL) {
			memcpy(ns, ids->ii_slots, ids->ii_nslots * sizeof(*ns));
			kfree(ids->ii_slots);
		}
		ids->ii_slots = ns;
		ids->ii_nslots = n;
	}
	ids->ii_slots[slot] = io;
	ids->ii_inuse++;
	io->io_seq = ids->ii_seq++;
	if (ids->ii_seq >= INT32_MAX / IPC_SEQ_MULT)
		ids->ii_seq = 0;
	io->io_id = io->io_seq * IPC_SEQ_MULT + slot;
	io->io_key = key;
	io->io_uid = io->io_cuid = cr->cr_uid;
	io->io_gid = io->io_cgid = cr->cr_gid;
	io->io_mode = (unsigned)mode & 0777;
	io->io_ctime = ipc_now();
	return 0;
}

void
ipc_rmid(struct ipc_ids *ids, struct ipc_obj *io)
{
	int slot = io->io_id % IPC_SEQ_MULT;
	KASSERT(ids->ii_slots[slot] == io, "ipc_rmid: not in its table");
	ids->ii_slots[slot] = NULL;
	ids->ii_inuse--;
	io->io_removed = true;
}

int
ipc_perms(const struct ucred *cr, const struct ipc_obj *io, int flag)
{
	unsigned requested = ((unsigned)flag >> 6 | (unsigned)flag >> 3 |
	    (unsigned)flag) & 7;
	unsigned granted = io->io_mode;
	if (cr->cr_uid == io->io_cuid || cr->cr_uid == io->io_uid)
		granted >>= 6;
	else if (groupmember(io->io_cgid, cr) || groupmember(io->io_gid, cr))
		granted >>= 3;
	if ((requested & ~granted & 7) && !cred_is_root(cr))
		return -EACCES;		/* CAP_IPC_OWNER would allow it */
	return 0;
}

bool
ipc_owner(const struct ucred *cr, const struct ipc_obj *io)
{
	return cr->cr_uid == io->io_cuid || cr->cr_uid == io->io_uid ||
	    cred_is_root(cr);
}

void
ipc_perm_out(const struct ipc_obj *io, struct linux_ipc64_perm *p)
{
	*p = (struct linux_ipc64_perm){
		.key = io->io_key, .uid = io->io_uid, .gid = io->io_gid,
		.cuid = io->io_cuid, .cgid = io->io_cgid,
		.mode = io->io_mode & 0xffff, .seq = io->io_seq,
	};
}

void
ipc_perm_set(struct ipc_obj *io, const struct linux_ipc64_perm *p)
{
	io->io_uid = p->uid;
	io->io_gid = p->gid;
	io->io_mode = (io->io_mode & ~0777u) | (p->mode & 0777);
	io->io_ctime = ipc_now();
}

int64_t
ipc_now(void)
{
	struct timespec ts;
	nanotime(&ts);
	return ts.tv_sec;
}

void
sysv_init(void)
{
	procfs_register(PFX_SYSVIPC_SHM, shm_procfs);
	procfs_register(PFX_SYSVIPC_SEM, sem_procfs);
	procfs_register(PFX_SYSVIPC_MSG, msg_procfs);
}
