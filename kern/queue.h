/*
 * Intrusive doubly linked lists, in the spirit of BSD <sys/queue.h>: a
 * TAILQ has a head with first and last, entries with next and a pointer to
 * the previous entry's next field, so removal needs no search.
 */
#ifndef KERN_QUEUE_H
#define KERN_QUEUE_H

#include <stddef.h>

#define TAILQ_HEAD(name, type)						\
	struct name { struct type *tqh_first; struct type **tqh_last; }

#define TAILQ_HEAD_INITIALIZER(head)	{ NULL, &(head).tqh_first }

#define TAILQ_ENTRY(type)						\
	struct { struct type *tqe_next; struct type **tqe_prev; }

#define TAILQ_INIT(head) do {						\
	(head)->tqh_first = NULL;					\
	(head)->tqh_last = &(head)->tqh_first;				\
} while (0)

#define TAILQ_EMPTY(head)		((head)->tqh_first == NULL)
#define TAILQ_FIRST(head)		((head)->tqh_first)
/*
 * The last element: tqh_last points at its tqe_next, the first member of
 * an entry laid out like a head, whose tqh_last is then the entry's
 * tqe_prev, pointing at the pointer that holds the element.
 */
#define TAILQ_LAST(head, headname)					\
	(*(((struct headname *)((head)->tqh_last))->tqh_last))
#define TAILQ_NEXT(elm, field)		((elm)->field.tqe_next)

#define TAILQ_INSERT_TAIL(head, elm, field) do {			\
	(elm)->field.tqe_next = NULL;					\
	(elm)->field.tqe_prev = (head)->tqh_last;			\
	*(head)->tqh_last = (elm);					\
	(head)->tqh_last = &(elm)->field.tqe_next;			\
} while (0)

#define TAILQ_INSERT_HEAD(head, elm, field) do {			\
	if (((elm)->field.tqe_next = (head)->tqh_first) != NULL)	\
		(head)->tqh_first->field.tqe_prev = &(elm)->field.tqe_next; \
	else								\
		(head)->tqh_last = &(elm)->field.tqe_next;		\
	(head)->tqh_first = (elm);					\
	(elm)->field.tqe_prev = &(head)->tqh_first;			\
} while (0)

/* Inserts elm before listelm. */
#define TAILQ_INSERT_BEFORE(listelm, elm, field) do {			\
	(elm)->field.tqe_prev = (listelm)->field.tqe_prev;		\
	(elm)->field.tqe_next = (listelm);				\
	*(listelm)->field.tqe_prev = (elm);				\
	(listelm)->field.tqe_prev = &(elm)->field.tqe_next;		\
} while (0)

#define TAILQ_REMOVE(head, elm, field) do {				\
	if ((elm)->field.tqe_next != NULL)				\
		(elm)->field.tqe_next->field.tqe_prev = (elm)->field.tqe_prev; \
	else								\
		(head)->tqh_last = (elm)->field.tqe_prev;		\
	*(elm)->field.tqe_prev = (elm)->field.tqe_next;			\
} while (0)

#define TAILQ_FOREACH(var, head, field)					\
	for ((var) = (head)->tqh_first; (var) != NULL;			\
	    (var) = (var)->field.tqe_next)

/* Safe against removal of var in the body. */
#define TAILQ_FOREACH_SAFE(var, head, field, tmp)			\
	for ((var) = (head)->tqh_first;					\
	    (var) != NULL && ((tmp) = (var)->field.tqe_next, 1);	\
	    (var) = (tmp))

#endif /* KERN_QUEUE_H */
