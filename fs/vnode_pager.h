/*
 * Objects for mappings of regular files (vnode_pager.c).
 */
#ifndef FS_VNODE_PAGER_H
#define FS_VNODE_PAGER_H

struct vnode;
struct vm_object;

/*
 * A new object, referenced once, whose pages are read from regular file
 * vp at their first fault (vp stays referenced until the object goes);
 * NULL if RAM is short.  One per mapping: see vnode_pager.c for what
 * that means for coherence with writes to the file.
 */
struct vm_object *vnode_pager_alloc(struct vnode *vp);

#endif /* FS_VNODE_PAGER_H */
