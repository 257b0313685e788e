/*
 * The ordered set of a map's entries (vm_map_tree.c), for vm_map.c: the
 * address-ordered ring and the AVL tree with free-gap sums, kept in step.
 *
 * Locking: the big kernel lock.
 */
#ifndef VM_VM_MAP_TREE_H
#define VM_VM_MAP_TREE_H

#include "vm/vm_map.h"

/* Adds e, whose range is free in map, to the ring and the tree. */
void vm_map_tree_link(struct vm_map *map, struct vm_map_entry *e);

/* Takes e out of the ring and the tree. */
void vm_map_tree_unlink(struct vm_map *map, struct vm_map_entry *e);

/*
 * Recomputes the free gaps that depend on e after its start, end or
 * MAP_ENTRY_GROWSDOWN changed (the order of entries must not have).
 */
void vm_map_tree_resized(struct vm_map *map, struct vm_map_entry *e);

#endif /* VM_VM_MAP_TREE_H */
