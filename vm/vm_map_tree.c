/*
 * A map's entries as an AVL tree keyed by start address, augmented with
 * free gaps (see vm_map.h), plus lookup and finding free space.
 *
 * The gap of an entry is the free space between the end of the entry
 * before it (or the map's lowest address) and its start, less the stack
 * guard for a MAP_GROWSDOWN entry; max_free is the largest gap in a
 * subtree.  The free space above the last entry, up to the map's highest
 * address, belongs to the header.  Every change that moves an entry's
 * start or its predecessor's end recomputes the two paths to the root
 * that can see it, so max_free is always exact.
 */
#include "vm/vm_map_tree.h"

static int
height(const struct vm_map_entry *n)
{
	return n != NULL ? n->height : 0;
}

static uint64_t
max_free(const struct vm_map_entry *n)
{
	return n != NULL ? n->max_free : 0;
}

/* Where the free space below e ends (e's start, less a stack's guard). */
static uint64_t
gap_end(const struct vm_map_entry *e)
{
	uint64_t s = e->start, below = e->prev->end;
	if (e->eflags & MAP_ENTRY_GROWSDOWN)
		s = s - below > VM_STACK_GUARD ? s - VM_STACK_GUARD : below;
	return s;
}

static uint64_t
gap(const struct vm_map_entry *e)
{
	return gap_end(e) - e->prev->end;
}

static void
update(struct vm_map_entry *n)
{
	n->height = 1 + MAX(height(n->left), height(n->right));
	n->max_free = MAX(gap(n), MAX(max_free(n->left), max_free(n->right)));
}

static void
replace_child(struct vm_map *map, struct vm_map_entry *parent,
    struct vm_map_entry *old, struct vm_map_entry *new)
{
	if (parent == NULL)
		map->root = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
	if (new != NULL)
		new->parent = parent;
}

static struct vm_map_entry *
rotate_left(struct vm_map *map, struct vm_map_entry *x)
{
	struct vm_map_entry *y = x->right;
	replace_child(map, x->parent, x, y);
	x->right = y->left;
	if (x->right != NULL)
		x->right->parent = x;
	y->left = x;
	x->parent = y;
	update(x);
	update(y);
	return y;
}

static struct vm_map_entry *
rotate_right(struct vm_map *map, struct vm_map_entry *x)
{
	struct vm_map_entry *y = x->left;
	replace_child(map, x->parent, x, y);
	x->left = y->right;
	if (x->left != NULL)
		x->left->parent = x;
	y->right = x;
	x->parent = y;
	update(x);
	update(y);
	return y;
}

/* Recomputes n and its ancestors, rotating where they lean too far. */
static void
rebalance(struct vm_map *map, struct vm_map_entry *n)
{
	for (; n != NULL; n = n->parent) {
		update(n);
		int b = height(n->left) - height(n->right);
		if (b > 1) {
			if (height(n->left->left) < height(n->left->right))
				rotate_left(map, n->left);
			n = rotate_right(map, n);
		} else if (b < -1) {
			if (height(n->right->right) < height(n->right->left))
				rotate_right(map, n->right);
			n = rotate_left(map, n);
		}
	}
}

void
vm_map_tree_link(struct vm_map *map, struct vm_map_entry *e)
{
	struct vm_map_entry *parent = NULL, **link = &map->root;
	struct vm_map_entry *before = VM_MAP_END(map);

	while (*link != NULL) {
		parent = *link;
		if (e->start < parent->start) {
			link = &parent->left;
		} else {
			before = parent;
			link = &parent->right;
		}
	}
	/* In the ring after the last entry below it. */
	e->prev = before;
	e->next = before->next;
	before->next->prev = e;
	before->next = e;

	e->left = e->right = NULL;
	e->parent = parent;
	*link = e;
	rebalance(map, e);
	if (e->next != VM_MAP_END(map))
		rebalance(map, e->next);	/* its gap shrank */
	map->nentries++;
}

void
vm_map_tree_unlink(struct vm_map *map, struct vm_map_entry *e)
{
	struct vm_map_entry *next = e->next, *fix;

	e->prev->next = next;
	next->prev = e->prev;

	if (e->left != NULL && e->right != NULL) {
		/* Its successor, which has no left child, takes its place. */
		struct vm_map_entry *s = e->right;
		while (s->left != NULL)
			s = s->left;
		if (s->parent != e) {
			fix = s->parent;
			fix->left = s->right;
			if (s->right != NULL)
				s->right->parent = fix;
			s->right = e->right;
			s->right->parent = s;
		} else {
			fix = s;
		}
		s->left = e->left;
		s->left->parent = s;
		replace_child(map, e->parent, e, s);
		s->height = e->height;
	} else {
		fix = e->parent;
		replace_child(map, e->parent, e,
		    e->left != NULL ? e->left : e->right);
	}
	rebalance(map, fix);
	if (next != VM_MAP_END(map))
		rebalance(map, next);	/* its gap grew */
	map->nentries--;
}

void
vm_map_tree_resized(struct vm_map *map, struct vm_map_entry *e)
{
	rebalance(map, e);
	if (e->next != VM_MAP_END(map))
		rebalance(map, e->next);
}

bool
vm_map_lookup_entry(struct vm_map *map, uint64_t addr,
    struct vm_map_entry **entry)
{
	struct vm_map_entry *n = map->root, *below = VM_MAP_END(map);

	while (n != NULL) {
		if (addr < n->start) {
			n = n->left;
		} else if (addr < n->end) {
			*entry = n;
			return true;
		} else {
			below = n;
			n = n->right;
		}
	}
	*entry = below;
	return false;
}

/* The leftmost entry of n's subtree starting above key with a gap >= len. */
static struct vm_map_entry *
first_fit(struct vm_map_entry *n, uint64_t key, uint64_t len)
{
	if (n == NULL || n->max_free < len)
		return NULL;
	if (n->start > key) {
		struct vm_map_entry *r = first_fit(n->left, key, len);
		if (r != NULL)
			return r;
		if (gap(n) >= len)
			return n;
	}
	return first_fit(n->right, key, len);
}

/* The rightmost entry of n's subtree starting below key with a gap >= len. */
static struct vm_map_entry *
last_fit(struct vm_map_entry *n, uint64_t key, uint64_t len)
{
	if (n == NULL || n->max_free < len)
		return NULL;
	if (n->start < key) {
		struct vm_map_entry *r = last_fit(n->right, key, len);
		if (r != NULL)
			return r;
		if (gap(n) >= len)
			return n;
	}
	return last_fit(n->left, key, len);
}

/* The free space below e, or above the last entry if e is the header. */
static void
gap_of(struct vm_map *map, struct vm_map_entry *e, uint64_t *lo,
    uint64_t *hi)
{
	*lo = e->prev->end;
	*hi = e == VM_MAP_END(map) ? vm_map_max(map) : gap_end(e);
}

int
vm_map_findspace(struct vm_map *map, uint64_t lo, uint64_t hi, uint64_t len,
    bool topdown, uint64_t *addr)
{
	struct vm_map_entry *e, *f;
	uint64_t a, b;

	lo = MAX(lo, vm_map_min(map));
	hi = MIN(hi, vm_map_max(map));
	if (len == 0 || hi <= lo || hi - lo < len)
		return -ENOMEM;

	if (!topdown) {
		/* The gap lo falls in (or the next one), clipped to lo. */
		vm_map_lookup_entry(map, lo, &e);
		e = e->next;
		gap_of(map, e, &a, &b);
		a = MAX(a, lo);
		if (b > a && b - a >= len) {
			if (a + len > hi)
				return -ENOMEM;
			*addr = a;
			return 0;
		}
		/* Else the first big enough gap above it. */
		if (e == VM_MAP_END(map))
			return -ENOMEM;
		f = first_fit(map->root, e->start, len);
		if (f == NULL)
			f = VM_MAP_END(map);
		gap_of(map, f, &a, &b);
		if (b - a < len || a + len > hi)
			return -ENOMEM;
		*addr = a;
		return 0;
	}

	/* The gap hi falls in (or the one below), clipped to hi. */
	vm_map_lookup_entry(map, hi - 1, &e);
	e = e->next;
	gap_of(map, e, &a, &b);
	b = MIN(b, hi);
	a = MAX(a, lo);
	if (b > a && b - a >= len) {
		*addr = b - len;
		return 0;
	}
	/* Else the last big enough gap below it. */
	f = last_fit(map->root, e->start, len);
	if (f == NULL)
		return -ENOMEM;
	gap_of(map, f, &a, &b);
	if (b - len < lo)
		return -ENOMEM;
	*addr = b - len;
	return 0;
}

bool
vm_map_range_free(struct vm_map *map, uint64_t start, uint64_t end)
{
	struct vm_map_entry *e;

	if (vm_map_lookup_entry(map, start, &e))
		return false;
	return e->next == VM_MAP_END(map) || e->next->start >= end;
}

bool
vm_map_fits(struct vm_map *map, uint64_t start, uint64_t end)
{
	struct vm_map_entry *e;

	if (start < vm_map_min(map) || end > vm_map_max(map) || start >= end ||
	    vm_map_lookup_entry(map, start, &e))
		return false;
	return e->next == VM_MAP_END(map) || gap_end(e->next) >= end;
}
