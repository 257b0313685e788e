/*
 * System V IPC (shared memory, semaphores, message queues): the part the
 * three share, Linux's ipc/util.c.  Each kind keeps its objects in a
 * struct ipc_ids; an object starts with a struct ipc_obj (key, owner,
 * creator, mode, sequence number).  Its identifier is Linux's:
 * seq * IPC_SEQ_MULT + slot, so a removed object's identifier is not
 * taken by the next one in its slot.
 *
 * An object removed (IPC_RMID) while processes sleep on it stays, marked
 * io_removed, until the last sleeper has seen that (io_refs) and says
 * EIDRM; only then does its kind free it.
 *
 * Locking: the big kernel lock.
 */
#ifndef SYS_SYSV_IPC_H
#define SYS_SYSV_IPC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct ucred;
struct proc;

#define IPC_SEQ_MULT	32768	/* Linux's SEQ_MULTIPLIER (IPCMNI) */

struct ipc_obj {
	int io_id;		/* what user space names it by */
	int io_key;		/* key_t; IPC_PRIVATE (0) once removed */
	uid_t io_uid, io_cuid;
	gid_t io_gid, io_cgid;
	unsigned io_mode;	/* 0777 and the kind's flags (SHM_DEST...) */
	unsigned short io_seq;
	bool io_removed;	/* IPC_RMID'd: sleepers see EIDRM */
	int io_refs;		/* sleepers holding it after removal */
	int64_t io_ctime;	/* last change (seconds) */
};

struct ipc_ids {
	struct ipc_obj **ii_slots;	/* kmalloc'd, ii_nslots */
	int ii_nslots;
	int ii_inuse;
	int ii_max;		/* SHMMNI, SEMMNI, MSGMNI */
	unsigned short ii_seq;
};

/* Linux's struct ipc64_perm on x86-64. */
struct linux_ipc64_perm {
	int32_t key;
	uint32_t uid, gid, cuid, cgid;
	uint32_t mode;		/* low 16 bits; seq follows */
	uint16_t seq, pad2;
	uint64_t unused1, unused2;
};

/*
 * Registers /proc/sysvipc/{shm,sem,msg} with procfs (boot calls it);
 * each kind makes its file: shm_procfs, sem_procfs, msg_procfs.
 */
void sysv_init(void);
struct sbuf;
int shm_procfs(struct sbuf *sb, struct proc *p);
int sem_procfs(struct sbuf *sb, struct proc *p);
int msg_procfs(struct sbuf *sb, struct proc *p);

/* The object with identifier id, or NULL (-EINVAL for the caller). */
struct ipc_obj *ipc_lookup(struct ipc_ids *ids, int id);

/* The live object with key (not IPC_PRIVATE), or NULL. */
struct ipc_obj *ipc_findkey(struct ipc_ids *ids, int key);

/*
 * Gives new object io a slot and an identifier with key, the mode's low
 * nine bits, and cr's ids as owner and creator.  -ENOSPC when the kind's
 * table is full, -ENOMEM.
 */
int ipc_addid(struct ipc_ids *ids, struct ipc_obj *io, int key, int mode,
    const struct ucred *cr);

/*
 * Takes io out of its table (its identifier and key no longer find it)
 * and marks it removed.  The caller frees it when io_refs allows.
 */
void ipc_rmid(struct ipc_ids *ids, struct ipc_obj *io);

/*
 * Linux's ipcperms: whether cr may access io as flag's rwx bits ask
 * (S_IRUGO-style bits, any of the three triples), by owner, group or
 * other, or by privilege.  0 or -EACCES.
 */
int ipc_perms(const struct ucred *cr, const struct ipc_obj *io, int flag);

/* Whether cr owns or created io, or is privileged (IPC_SET, IPC_RMID). */
bool ipc_owner(const struct ucred *cr, const struct ipc_obj *io);

/* io's permissions as user space sees them. */
void ipc_perm_out(const struct ipc_obj *io, struct linux_ipc64_perm *p);

/* IPC_SET: uid, gid and the low nine mode bits from p; sets io_ctime. */
void ipc_perm_set(struct ipc_obj *io, const struct linux_ipc64_perm *p);

/* The wall clock in seconds, for the kinds' times. */
int64_t ipc_now(void);

/*
 * Destroys the segments removed while attached that nothing maps any
 * more (sysv_shm.c): before anything looks at the segments.
 */
void shm_reap(void);

/* SEM_UNDO adjustments of exiting process p (sysv_sem.c). */
void sem_exit(struct proc *p);

#endif /* SYS_SYSV_IPC_H */
