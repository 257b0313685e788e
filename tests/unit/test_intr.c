/*
 * The interrupt-handler registry (kern/interrupt.h).
 */
#include <errno.h>

#include "host/cpu.h"
#include "kern/init.h"
#include "kern/interrupt.h"
#include "kern/thread.h"
#include "tests/unit/unit.h"

static int intr_calls;
static uint32_t intr_bits;

static void
counting_handler(void *arg, uint32_t bits)
{
	intr_calls += *(int *)arg;
	intr_bits = bits;
}

TEST(intr_establish_and_dispatch)
{
	static int one = 1;

	CHECK_EQ(intr_establish(0, counting_handler, &one), -EINVAL);
	CHECK_EQ(intr_establish(INTR_TICK, counting_handler, &one), -EINVAL);
	CHECK_EQ(intr_establish(INTR_SIGNAL, counting_handler, &one), -EINVAL);
	CHECK_EQ(intr_establish(INTR_DEVICE | INTR_DISK, counting_handler, &one),
	    -EINVAL);
	CHECK_EQ(intr_establish(INTR_DEVICE, counting_handler, &one), 0);
	/* Again: still one handler, called once per interrupt. */
	CHECK_EQ(intr_establish(INTR_DEVICE, counting_handler, &one), 0);
	REQUIRE(sched_intr_hook != NULL || intr_init() == 0);

	intr_calls = 0;
	kernel_lock();
	sched_intr_hook(NULL, INTR_DEVICE | INTR_KICK);
	CHECK_EQ(intr_calls, 1);
	CHECK_EQ(intr_bits, INTR_DEVICE | INTR_KICK);
	/* A bit it did not register for does not call it. */
	sched_intr_hook(NULL, INTR_KICK);
	kernel_unlock();
	CHECK_EQ(intr_calls, 1);
}
