/*
 * The system-call table, by number, expanded from sys/syscalls.tbl.h.
 * A number no call has is left empty (dispatch answers -ENOSYS).
 */
#include "sys/syscall.h"

#define SYSCALL(nr, name, handler, flags, ret, ...)			\
	[nr] = {							\
		.sy_call = handler,					\
		.sy_name = #name,					\
		.sy_flags = (flags),					\
		.sy_ret = (ret),					\
		.sy_narg = sizeof((uint16_t[]){ 0, __VA_ARGS__ }) /	\
		    sizeof(uint16_t) - 1,				\
		.sy_args = { __VA_ARGS__ },				\
	},

const struct sysent sysent[SYS_MAXSYSCALL] = {
#include "sys/syscalls.tbl.h"
};
#undef SYSCALL
