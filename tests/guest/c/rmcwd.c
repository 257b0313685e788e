/*
 * A directory removed while it is the working directory (Linux):
 * getcwd fails with ENOENT; "." still opens and reads as empty; nothing
 * can be created in it (ENOENT); stat of "." shows no links; and
 * chdir("..") succeeds, back into the parent the directory had.  Also
 * for a directory removed while only a descriptor holds it (fchdir).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
show(const char *what, long r)
{
	if (r < 0)
		printf("%s: %s\n", what, strerror(errno));
	else
		printf("%s: ok\n", what);
}

/* The entries of "." that readdir gives, by name. */
static void
list_dot(void)
{
	DIR *d = opendir(".");
	struct dirent *e;
	int n = 0;

	if (d == NULL) {
		printf("opendir .: %s\n", strerror(errno));
		return;
	}
	while ((e = readdir(d)) != NULL) {
		printf("  entry %s\n", e->d_name);
		n++;
	}
	printf("readdir: %d entries\n", n);
	closedir(d);
}

/* In the removed working directory: what Linux allows and refuses. */
static void
inside_removed(const char *top)
{
	char buf[4096];
	struct stat st;

	show("getcwd", getcwd(buf, sizeof(buf)) != NULL ? 0 : -1);
	show("stat .", stat(".", &st));
	printf("nlink %lu, dir %d\n", (unsigned long)st.st_nlink, S_ISDIR(st.st_mode));
	int fd = open(".", O_RDONLY | O_DIRECTORY);
	show("open .", fd);
	if (fd >= 0)
		close(fd);
	list_dot();
	show("creat f", open("f", O_WRONLY | O_CREAT, 0600));
	show("mkdir sub", mkdir("sub", 0700));
	show("open ./f", open("./f", O_RDONLY));
	show("stat ..", stat("..", &st));
	show("chdir ..", chdir(".."));
	show("getcwd after", getcwd(buf, sizeof(buf)) != NULL ? 0 : -1);
	printf("back at the top: %d\n", strcmp(buf, top) == 0);
	show("back in parent", stat("marker", &st));
}

int
main(void)
{
	char top[4096];

	mkdir("rmcwd.top", 0700);
	if (chdir("rmcwd.top") < 0 || getcwd(top, sizeof(top)) == NULL)
		return 1;
	close(open("marker", O_WRONLY | O_CREAT, 0600));

	printf("== rmdir of the cwd\n");
	mkdir("gone", 0700);
	show("chdir gone", chdir("gone"));
	show("rmdir ../gone", rmdir("../gone"));
	inside_removed(top);

	printf("== rmdir by its full path, two deep\n");
	mkdir("a", 0700);
	mkdir("a/b", 0700);
	show("chdir a/b", chdir("a/b"));
	show("rmdir", rmdir("../b"));
	show("chdir ..", chdir(".."));
	show("stat ../marker", access("../marker", F_OK));
	show("rmdir a", rmdir("../a"));
	inside_removed(top);

	printf("== fchdir into a removed directory\n");
	mkdir("held", 0700);
	int fd = open("held", O_RDONLY | O_DIRECTORY);
	show("rmdir held", rmdir("held"));
	show("fchdir", fchdir(fd));
	close(fd);
	inside_removed(top);

	unlink("marker");
	show("chdir /", chdir("/"));
	show("rmdir top", rmdir(top));
	return 0;
}
