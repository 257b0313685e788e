/*
 * The unit-test runner (see unit.h).  With arguments, runs only the tests
 * whose names contain one of them.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

#include "unit.h"

static struct unit_test *head, **tail = &head;

uint64_t rng_state = 1;

uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}
static int cur_failed, cur_skipped;
static char skip_reason[256];

void
unit_register(struct unit_test *t)
{
	*tail = t;
	tail = &t->next;
}

void
unit_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "    %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cur_failed = 1;
}

void
unit_skip(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(skip_reason, sizeof(skip_reason), fmt, ap);
	va_end(ap);
	cur_skipped = 1;
}

int
unit_failed_now(void)
{
	return cur_failed;
}

static int
selected(const struct unit_test *t, int argc, char **argv)
{
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (strstr(t->name, argv[i]) != NULL)
			return 1;
	return 0;
}

int
main(int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;
	char skipped_names[4096] = "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (struct unit_test *t = head; t != NULL; t = t->next) {
		if (!selected(t, argc, argv))
			continue;
		struct timespec a, b;
		cur_failed = cur_skipped = 0;
		clock_gettime(CLOCK_MONOTONIC, &a);
		t->fn();
		clock_gettime(CLOCK_MONOTONIC, &b);
		double ms = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
		if (cur_failed) {
			failed++;
			printf("FAIL %s (%s) %.1f ms\n", t->name, t->file, ms);
		} else if (cur_skipped) {
			skipped++;
			printf("SKIP %s: %s\n", t->name, skip_reason);
			size_t n = strlen(skipped_names);
			snprintf(skipped_names + n, sizeof(skipped_names) - n,
			    "%s%s", n ? ", " : "", t->name);
		} else {
			passed++;
			printf("ok   %s %.1f ms\n", t->name, ms);
		}
	}
	if (skipped)
		printf("skipped: %s\n", skipped_names);
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}
