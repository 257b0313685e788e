/*
 * A small unit-test harness.  Each test file defines tests with TEST(name);
 * they register themselves before main() and run in file order.  CHECK
 * records a failure and goes on; REQUIRE ends the test; SKIP ends it as
 * skipped with a reason.  The runner's last line is
 * "N passed, N failed, N skipped".
 */
#ifndef TESTS_UNIT_H
#define TESTS_UNIT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct unit_test {
	const char *name;
	const char *file;
	void (*fn)(void);
	struct unit_test *next;
};

void unit_register(struct unit_test *t);
void unit_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void unit_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int unit_failed_now(void);

#define TEST(name)							\
	static void test_##name(void);					\
	static struct unit_test unit_##name = {				\
		#name, __FILE__, test_##name, NULL };			\
	__attribute__((constructor)) static void reg_##name(void)	\
	{ unit_register(&unit_##name); }				\
	static void test_##name(void)

#define CHECK(cond) do {						\
	if (!(cond))							\
		unit_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);	\
} while (0)

#define CHECK_EQ(a, b) do {						\
	unsigned long long a_ = (unsigned long long)(a);		\
	unsigned long long b_ = (unsigned long long)(b);		\
	if (a_ != b_)							\
		unit_fail(__FILE__, __LINE__, "%s == %#llx, expected %s == %#llx", \
		    #a, a_, #b, b_);					\
} while (0)

#define REQUIRE(cond) do {						\
	if (!(cond)) {							\
		unit_fail(__FILE__, __LINE__, "REQUIRE(%s)", #cond);	\
		return;							\
	}								\
} while (0)

/*
 * A deterministic pseudo-random sequence (xorshift64) for randomized
 * tests: seed rng_state (non-zero) in the test, then call rng().
 */
extern uint64_t rng_state;
uint64_t rng(void);

#define SKIP(...) do { unit_skip(__VA_ARGS__); return; } while (0)

#endif /* TESTS_UNIT_H */
