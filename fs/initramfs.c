/*
 * The initramfs loader (see initramfs.h).
 *
 * A newc entry is a 110-byte header of a magic and thirteen 8-digit hex
 * fields, the name (namesize bytes with its NUL), padding to a multiple
 * of four, the data (filesize bytes), padding again.  Every length and
 * offset is checked against the buffer before it is used: the archive
 * comes from a file the user names and may be anything.
 *
 * The entries are made through the file system calls, as a root process
 * with umask 0 whose root directory is the target, so the archive gets
 * exactly the checks and semantics a program would, and ".." cannot
 * climb out.
 */
#include "fs/initramfs.h"
#include "fs/vfs.h"
#include "kern/ucred.h"
#include "kern/uio.h"
#include "kern/kmem.h"

#define NEWC_HDRLEN	110
#define NEWC_TRAILER	"TRAILER!!!"

enum { F_INO, F_MODE, F_UID, F_GID, F_NLINK, F_MTIME, F_FILESIZE,
	F_DEVMAJOR, F_DEVMINOR, F_RDEVMAJOR, F_RDEVMINOR, F_NAMESIZE, F_CHECK,
	F_COUNT };

struct newc {
	uint32_t f[F_COUNT];
	const char *name;	/* NUL-terminated inside the buffer */
	const char *data;
	size_t datalen;
};

/* A regular file seen with nlink > 1: later entries link to it. */
struct hardlink {
	uint32_t ino, major, minor;
	char *path;
};

/* A directory whose mtime is set at the end, when its children exist. */
struct dirtime {
	struct vnode *vp;
	uint32_t mtime;
};

struct unpack {
	struct fsproc fsp;
	struct ucred cred;
	struct hardlink *links;
	size_t nlinks, maxlinks;
	struct dirtime *dirs;
	size_t ndirs, maxdirs;
};

static size_t
align4(size_t x)
{
	return (x + 3) & ~(size_t)3;
}

static int
parse_hex(const char *s, uint32_t *v)
{
	uint32_t x = 0;
	for (int i = 0; i < 8; i++) {
		char c = s[i];
		int d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -EINVAL;
		x = x << 4 | (uint32_t)d;
	}
	*v = x;
	return 0;
}

/*
 * Parses the entry at *offp into e and advances *offp past it.  Returns
 * 0 or -EINVAL (logged) if anything is out of bounds or malformed.
 */
static int
parse_entry(const char *buf, size_t len, size_t *offp, struct newc *e)
{
	size_t off = *offp;

	if (len - off < NEWC_HDRLEN) {
		kprintf("initramfs: truncated header at offset %zu\n", off);
		return -EINVAL;
	}
	const char *h = buf + off;
	if (memcmp(h, "07070", 5) != 0 || (h[5] != '1' && h[5] != '2')) {
		kprintf("initramfs: bad magic at offset %zu\n", off);
		return -EINVAL;
	}
	for (int i = 0; i < F_COUNT; i++) {
		if (parse_hex(h + 6 + 8 * i, &e->f[i]) < 0) {
			kprintf("initramfs: bad header field at offset %zu\n", off);
			return -EINVAL;
		}
	}
	uint32_t namesize = e->f[F_NAMESIZE];
	size_t nameoff = off + NEWC_HDRLEN;
	if (namesize == 0 || namesize > PATH_MAX || namesize > len - nameoff) {
		kprintf("initramfs: bad name size at offset %zu\n", off);
		return -EINVAL;
	}
	e->name = buf + nameoff;
	if (strnlen(e->name, namesize) != namesize - 1) {
		kprintf("initramfs: bad name at offset %zu\n", off);
		return -EINVAL;
	}
	/* An entry without data may end the buffer before its padding. */
	size_t dataoff = MIN(align4(nameoff + namesize), len);
	uint32_t filesize = e->f[F_FILESIZE];
	if (filesize > len - dataoff ||
	    (filesize > 0 && dataoff != align4(nameoff + namesize))) {
		kprintf("initramfs: truncated data at offset %zu\n", off);
		return -EINVAL;
	}
	e->data = buf + dataoff;
	e->datalen = filesize;
	/* Alignment may run past the end only after the last entry. */
	*offp = MIN(align4(dataoff + filesize), len);
	return 0;
}

/* Grows a table of n used entries of size sz; 0 or -ENOMEM. */
static int
table_grow(void **tab, size_t n, size_t *max, size_t sz)
{
	if (n < *max)
		return 0;
	size_t nmax = *max == 0 ? 16 : *max * 2;
	void *nt = kmalloc(nmax * sz, 0);
	if (nt == NULL)
		return -ENOMEM;
	if (n > 0)
		memcpy(nt, *tab, n * sz);
	kfree(*tab);
	*tab = nt;
	*max = nmax;
	return 0;
}

/*
 * Makes room for the entry called name of type ifmt: removes what is
 * there unless both are directories (Linux's clean_path).
 */
static int
clean_path(struct unpack *u, const char *name, mode_t ifmt)
{
	struct linux_stat st;
	int error = kern_fstatat(&u->fsp, &u->cred, AT_FDCWD, name, &st,
	    AT_SYMLINK_NOFOLLOW);
	if (error == -ENOENT)
		return 0;
	if (error < 0)
		return error;
	if (S_ISDIR(st.st_mode) && ifmt == S_IFDIR)
		return 0;
	return kern_unlinkat(&u->fsp, &u->cred, AT_FDCWD, name,
	    S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
}

/* Owner, then mode (chown clears set-ID bits), then times. */
static int
set_attrs(struct unpack *u, const char *name, const struct newc *e,
    bool islink)
{
	int flags = islink ? AT_SYMLINK_NOFOLLOW : 0;
	int error = kern_fchownat(&u->fsp, &u->cred, AT_FDCWD, name,
	    e->f[F_UID], e->f[F_GID], flags);
	if (error == 0 && !islink)
		error = kern_fchmodat(&u->fsp, &u->cred, AT_FDCWD, name,
		    e->f[F_MODE] & 07777, 0);
	if (error == 0) {
		struct timespec ts[2] = {
			{ (time_t)e->f[F_MTIME], 0 }, { (time_t)e->f[F_MTIME], 0 },
		};
		error = kern_utimensat(&u->fsp, &u->cred, AT_FDCWD, name, ts,
		    flags);
	}
	return error;
}

/* Writes the entry's data into the open file fd from offset 0. */
static int
write_data(struct unpack *u, int fd, const struct newc *e)
{
	struct uio uio;
	struct kiovec iov;

	if (e->datalen == 0)
		return 0;
	uio_init_kernel(&uio, &iov, (void *)e->data, e->datalen, 0, UIO_WRITE);
	int64_t n = kern_pwritev(&u->fsp, fd, &uio, 0);
	if (n < 0)
		return (int)n;
	return (uint64_t)n == e->datalen ? 0 : -EIO;
}

/* The earlier name of a hard-linked file, or NULL. */
static const char *
find_link(struct unpack *u, const struct newc *e)
{
	for (size_t i = 0; i < u->nlinks; i++) {
		struct hardlink *l = &u->links[i];
		if (l->ino == e->f[F_INO] && l->major == e->f[F_DEVMAJOR] &&
		    l->minor == e->f[F_DEVMINOR])
			return l->path;
	}
	return NULL;
}

static int
remember_link(struct unpack *u, const char *name, const struct newc *e)
{
	int error = table_grow((void **)&u->links, u->nlinks, &u->maxlinks,
	    sizeof(*u->links));
	if (error < 0)
		return error;
	size_t len = strlen(name);
	char *path = kmalloc(len + 1, 0);
	if (path == NULL)
		return -ENOMEM;
	memcpy(path, name, len + 1);
	u->links[u->nlinks++] = (struct hardlink){
		e->f[F_INO], e->f[F_DEVMAJOR], e->f[F_DEVMINOR], path };
	return 0;
}

static int
do_file(struct unpack *u, const char *name, const struct newc *e)
{
	int flags = O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW;
	int error;

	if (e->f[F_NLINK] > 1) {
		const char *first = find_link(u, e);
		if (first != NULL) {
			/* A later name: link it, and keep the data if it has it. */
			error = kern_linkat(&u->fsp, &u->cred, AT_FDCWD, first,
			    AT_FDCWD, name, 0);
			if (error < 0)
				return error;
			flags &= ~O_TRUNC;
		} else if ((error = remember_link(u, name, e)) < 0) {
			return error;
		}
	}
	int fd = kern_openat(&u->fsp, &u->cred, AT_FDCWD, name, flags,
	    e->f[F_MODE] & 07777);
	if (fd < 0)
		return fd;
	error = write_data(u, fd, e);
	kern_close(&u->fsp, fd);
	return error;
}

static int
do_symlink(struct unpack *u, const char *name, const struct newc *e)
{
	if (e->datalen == 0 || e->datalen >= PATH_MAX ||
	    memchr(e->data, '\0', e->datalen) != NULL)
		return -EINVAL;
	char *target = kmalloc(e->datalen + 1, 0);
	if (target == NULL)
		return -ENOMEM;
	memcpy(target, e->data, e->datalen);
	target[e->datalen] = '\0';
	int error = kern_symlinkat(&u->fsp, &u->cred, target, AT_FDCWD, name);
	kfree(target);
	return error;
}

/* Directory name's children will touch its mtime: set it again at the end. */
static int
remember_dirtime(struct unpack *u, const char *name, const struct newc *e)
{
	int error;

	if ((error = table_grow((void **)&u->dirs, u->ndirs, &u->maxdirs,
	    sizeof(*u->dirs))) < 0)
		return error;
	int fd = kern_openat(&u->fsp, &u->cred, AT_FDCWD, name,
	    O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	struct file *fp = fget(&u->fsp, fd);
	struct vnode *vp = vref(fp->f_vnode);
	fdrop(fp);
	kern_close(&u->fsp, fd);
	u->dirs[u->ndirs++] = (struct dirtime){ vp, e->f[F_MTIME] };
	return 0;
}

static int
do_dir(struct unpack *u, const char *name, const struct newc *e)
{
	int error = kern_mkdirat(&u->fsp, &u->cred, AT_FDCWD, name,
	    e->f[F_MODE] & 07777);
	if (error < 0 && error != -EEXIST)
		return error;
	if ((error = set_attrs(u, name, e, false)) < 0)
		return error;
	return remember_dirtime(u, name, e);
}


/* Creates one entry; name is relative to the root, never empty. */
static int
do_entry(struct unpack *u, const char *name, const struct newc *e)
{
	mode_t ifmt = e->f[F_MODE] & S_IFMT;
	int error;

	if (strcmp(name, ".") == 0) {	/* the root itself */
		if (ifmt != S_IFDIR)
			return -EINVAL;
		if ((error = set_attrs(u, name, e, false)) < 0)
			return error;
		return remember_dirtime(u, name, e);
	}
	if ((error = clean_path(u, name, ifmt)) < 0)
		return error;
	switch (ifmt) {
	case S_IFDIR:
		return do_dir(u, name, e);
	case S_IFREG:
		error = do_file(u, name, e);
		break;
	case S_IFLNK:
		if ((error = do_symlink(u, name, e)) == 0)
			return set_attrs(u, name, e, true);
		return error;
	case S_IFCHR:
	case S_IFBLK:
	case S_IFIFO:
	case S_IFSOCK:
		error = kern_mknodat(&u->fsp, &u->cred, AT_FDCWD, name,
		    ifmt | (e->f[F_MODE] & 07777),
		    linux_makedev(e->f[F_RDEVMAJOR], e->f[F_RDEVMINOR]));
		break;
	default:
		return -EINVAL;
	}
	if (error == 0)
		error = set_attrs(u, name, e, false);
	return error;
}

/* Drops leading slashes and "./": the root is ".". */
static const char *
relative_name(const char *name)
{
	for (;;) {
		if (name[0] == '/')
			name++;
		else if (name[0] == '.' && name[1] == '/')
			name += 2;
		else
			break;
	}
	return name[0] == '\0' ? "." : name;
}

static void
unpack_done(struct unpack *u)
{
	for (size_t i = 0; i < u->ndirs; i++) {
		struct vnode *vp = u->dirs[i].vp;
		struct vattr va = { .va_mask = VA_MTIME | VA_ATIME };
		va.va_mtime.tv_sec = va.va_atime.tv_sec = u->dirs[i].mtime;
		vp->v_op->vop_setattr(vp, &va);
		vrele(vp);
	}
	for (size_t i = 0; i < u->nlinks; i++)
		kfree(u->links[i].path);
	kfree(u->dirs);
	kfree(u->links);
	fsproc_exit(&u->fsp);
}

int
initramfs_load(struct vnode *root, const void *buf, size_t len)
{
	struct unpack u;
	size_t off = 0;
	int error = 0;
	bool in_archive = false;

	memset(&u, 0, sizeof(u));
	cred_init_root(&u.cred);
	if ((error = fsproc_init(&u.fsp, root)) < 0)
		return error;
	u.fsp.fp_pwd->pd_umask = 0;

	for (;;) {
		/* Between archives: zero padding, or the end. */
		if (!in_archive) {
			while (off < len && ((const char *)buf)[off] == '\0')
				off++;
			if (off == len)
				break;
		}
		struct newc e;
		size_t at = off;
		if ((error = parse_entry(buf, len, &off, &e)) < 0)
			break;
		if (strcmp(e.name, NEWC_TRAILER) == 0) {
			in_archive = false;
			continue;
		}
		in_archive = true;
		const char *name = relative_name(e.name);
		if ((error = do_entry(&u, name, &e)) < 0) {
			kprintf("initramfs: %s (entry at offset %zu): error %d\n",
			    e.name, at, -error);
			break;
		}
	}
	if (error == 0 && in_archive) {
		kprintf("initramfs: no trailer: archive truncated\n");
		error = -EINVAL;
	}
	unpack_done(&u);
	return error;
}
