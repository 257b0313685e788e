/*
 * The anonymous pager (see vm_pager.h): the pager of memory that no file
 * backs.  It has no store: a page that is not resident has never been
 * written (it reads as zero, or as its backing object says), and a dirty
 * page cannot be cleaned until there is swap.
 */
#include <errno.h>
#include <stddef.h>

#include "vm/vm_pager.h"

static int
anon_getpage(struct vm_object *obj, uint64_t pindex, struct vm_page **mp)
{
	(void)obj;
	(void)pindex;
	*mp = NULL;
	return -ENOENT;
}

static int
anon_putpages(struct vm_object *obj, const uint64_t *idx, int n)
{
	(void)obj;
	(void)idx;
	(void)n;
	return -ENOSYS;
}

const struct vm_pager_ops anon_pager_ops = {
	.name = "anon",
	.getpage = anon_getpage,
	.putpages = anon_putpages,
};
