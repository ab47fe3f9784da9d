/*
 * winprobe: a Windows console program that exercises file names the way
 * Windows programs do, for the Wine client test (tests/clients/wine.sh) and
 * the Wine bench (bench/wine.sh).  Built with x86_64-w64-mingw32-gcc at test
 * time; run under Wine.  Paths are Windows paths (Z:\... reaches Unix /).
 *
 *   winprobe open PATH...                 per PATH: "ok FIRST-LINE" or the error
 *   winprobe create new|always PATH TEXT  CREATE_NEW or OPEN_ALWAYS, then TEXT
 *                                         appended; prints "created",
 *                                         "opened existing" or the error
 *   winprobe list DIR                     FindFirstFile/FindNextFile: the
 *                                         names, one a line, without . and ..
 *   winprobe move FROM TO                 MoveFileExA (a case-only rename
 *                                         too): "moved" or the error
 *   winprobe time DIR PREFIX SUFFIX FIRST COUNT STEP BUDGET_MS [PASSES]
 *       opens DIR\PREFIX<7-digit i>SUFFIX for i = FIRST, FIRST+STEP, ...
 *       COUNT times or until BUDGET_MS have passed, whichever comes first;
 *       prints "opens N found F notfound M errors E ns_per_open X".
 *       With PASSES > 1, opens the same N names again, PASSES - 1 more
 *       times right after (no budget: the names of the first pass), a line
 *       per pass.
 *
 * Errors are printed by name (ERROR_FILE_NOT_FOUND, ...) so that the shell
 * side compares words, not numbers.  Exit status: 0 when the command ran
 * (whatever the per-name results), 2 on bad usage.
 */
#include <windows.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *error_name(DWORD e)
{
	static char other[32];

	switch (e) {
	case ERROR_FILE_NOT_FOUND: return "ERROR_FILE_NOT_FOUND";
	case ERROR_PATH_NOT_FOUND: return "ERROR_PATH_NOT_FOUND";
	case ERROR_TOO_MANY_OPEN_FILES: return "ERROR_TOO_MANY_OPEN_FILES";
	case ERROR_ACCESS_DENIED: return "ERROR_ACCESS_DENIED";
	case ERROR_SHARING_VIOLATION: return "ERROR_SHARING_VIOLATION";
	case ERROR_FILE_EXISTS: return "ERROR_FILE_EXISTS";
	case ERROR_ALREADY_EXISTS: return "ERROR_ALREADY_EXISTS";
	case ERROR_INVALID_NAME: return "ERROR_INVALID_NAME";
	default:
		snprintf(other, sizeof(other), "error=%lu", (unsigned long)e);   /* one word */
		return other;
	}
}

/* Opens an existing file for reading, sharing everything, as most programs do. */
static HANDLE open_existing(const char *path)
{
	return CreateFileA(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			   NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
}

static int cmd_open(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		HANDLE h = open_existing(argv[i]);
		if (h == INVALID_HANDLE_VALUE) {
			printf("%s %s\n", argv[i], error_name(GetLastError()));
			continue;
		}
		/* The first line shows which file the name reached. */
		char buf[128];
		DWORD got = 0;
		if (!ReadFile(h, buf, sizeof(buf) - 1, &got, NULL))
			got = 0;
		buf[got] = 0;
		buf[strcspn(buf, "\r\n")] = 0;
		printf("%s ok %s\n", argv[i], buf);
		CloseHandle(h);
	}
	return 0;
}

static int cmd_create(const char *mode, const char *path, const char *text)
{
	DWORD disposition;

	if (!strcmp(mode, "new"))
		disposition = CREATE_NEW;
	else if (!strcmp(mode, "always"))
		disposition = OPEN_ALWAYS;
	else
		return 2;
	HANDLE h = CreateFileA(path, GENERIC_WRITE, FILE_SHARE_READ, NULL, disposition,
			       FILE_ATTRIBUTE_NORMAL, NULL);
	/* OPEN_ALWAYS reports an existing file through the last error, on success. */
	DWORD e = GetLastError();
	if (h == INVALID_HANDLE_VALUE) {
		printf("%s %s\n", path, error_name(e));
		return 0;
	}
	const char *what = e == ERROR_ALREADY_EXISTS ? "opened existing" : "created";
	DWORD put = 0;
	SetFilePointer(h, 0, NULL, FILE_END);
	if (!WriteFile(h, text, (DWORD)strlen(text), &put, NULL) || put != strlen(text)) {
		printf("%s %s, write %s\n", path, what, error_name(GetLastError()));
		CloseHandle(h);
		return 0;
	}
	CloseHandle(h);
	printf("%s %s\n", path, what);
	return 0;
}

static int cmd_move(const char *from, const char *to)
{
	if (MoveFileExA(from, to, 0))
		printf("moved\n");
	else
		printf("%s\n", error_name(GetLastError()));
	return 0;
}

static int cmd_list(const char *dir)
{
	char pattern[MAX_PATH];
	WIN32_FIND_DATAA fd;

	if ((size_t)snprintf(pattern, sizeof(pattern), "%s\\*", dir) >= sizeof(pattern))
		return 2;
	HANDLE h = FindFirstFileA(pattern, &fd);
	if (h == INVALID_HANDLE_VALUE) {
		printf("%s %s\n", dir, error_name(GetLastError()));
		return 0;
	}
	do {
		if (strcmp(fd.cFileName, ".") && strcmp(fd.cFileName, ".."))
			printf("%s\n", fd.cFileName);
	} while (FindNextFileA(h, &fd));
	DWORD e = GetLastError();
	FindClose(h);
	if (e != ERROR_NO_MORE_FILES)
		printf("%s FindNextFile %s\n", dir, error_name(e));
	return 0;
}

/* One timed pass over the names; returns the number of opens made. */
static long time_pass(const char *dir, const char *prefix, const char *suffix, long first,
		      long count, long step, LONGLONG budget)
{
	LARGE_INTEGER freq, start, now;
	long done = 0, found = 0, notfound = 0, errors = 0;
	DWORD first_error = 0;
	char path[MAX_PATH];

	QueryPerformanceFrequency(&freq);
	QueryPerformanceCounter(&start);
	now = start;
	for (long i = first; done < count && (budget <= 0 || now.QuadPart - start.QuadPart < budget);
	     i += step) {
		snprintf(path, sizeof(path), "%s\\%s%07ld%s", dir, prefix, i, suffix);
		HANDLE h = open_existing(path);
		if (h != INVALID_HANDLE_VALUE) {
			found++;
			CloseHandle(h);
		} else {
			DWORD e = GetLastError();
			if (e == ERROR_FILE_NOT_FOUND) {
				notfound++;
			} else {
				/* Anything else (descriptors, I/O) is the filesystem failing. */
				if (!errors)
					first_error = e;
				errors++;
			}
		}
		done++;
		QueryPerformanceCounter(&now);
	}
	double ns = (double)(now.QuadPart - start.QuadPart) * 1e9 / (double)freq.QuadPart;
	printf("opens %ld found %ld notfound %ld errors %ld ns_per_open %.0f", done, found,
	       notfound, errors, ns / (double)done);
	if (errors)
		printf(" first_error %s", error_name(first_error));
	printf("\n");
	return done;
}

static int cmd_time(int argc, char **argv)
{
	const char *dir = argv[0], *prefix = argv[1], *suffix = argv[2];
	long first = strtol(argv[3], NULL, 10), count = strtol(argv[4], NULL, 10);
	long step = strtol(argv[5], NULL, 10), budget_ms = strtol(argv[6], NULL, 10);
	long passes = argc > 7 ? strtol(argv[7], NULL, 10) : 1;
	LARGE_INTEGER freq;

	if (count <= 0 || step <= 0 || budget_ms <= 0 || passes <= 0)
		return 2;
	QueryPerformanceFrequency(&freq);
	/* Later passes: the same names as the first, however long they take. */
	count = time_pass(dir, prefix, suffix, first, count, step, freq.QuadPart * budget_ms / 1000);
	for (long p = 1; p < passes; p++)
		time_pass(dir, prefix, suffix, first, count, step, 0);
	return 0;
}

int main(int argc, char **argv)
{
	/* "\n", not "\r\n": the shell compares the lines. */
	_setmode(_fileno(stdout), _O_BINARY);
	if (argc >= 3 && !strcmp(argv[1], "open"))
		return cmd_open(argc - 2, argv + 2);
	if (argc == 5 && !strcmp(argv[1], "create"))
		return cmd_create(argv[2], argv[3], argv[4]);
	if (argc == 3 && !strcmp(argv[1], "list"))
		return cmd_list(argv[2]);
	if ((argc == 9 || argc == 10) && !strcmp(argv[1], "time"))
		return cmd_time(argc - 2, argv + 2);
	if (argc == 4 && !strcmp(argv[1], "move"))
		return cmd_move(argv[2], argv[3]);
	fprintf(stderr, "usage: winprobe open PATH... | create new|always PATH TEXT | list DIR |\n"
			"       move FROM TO | time DIR PREFIX SUFFIX FIRST COUNT STEP BUDGET_MS [PASSES]\n");
	return 2;
}
