#include "collect/cmdline.h"

#include <stdlib.h>
#include <string.h>

#include "util/common.h"

/*
 * Characters that mean something to sh outside quotes. Some are special only in some
 * positions (# at a word start, ~ at a word start, { } as words); treating them as special
 * everywhere only costs a shell startup, while missing one would change the meaning.
 */
static const char shell_chars[] = "$`|&;<>()*?[]~{}#!\\\n\r";

/* Builtins and keywords: words that exist only inside a shell (or behave differently). */
static const char *const shell_words[] = {
    "!",       ".",	  ":",	      "[[",   "]]",    "alias", "bg",	    "break",	"case",
    "cd",      "command", "continue", "do",   "done",  "elif",	"else",	    "esac",	"eval",
    "exec",    "exit",	  "export",   "fc",   "fg",    "fi",	"for",	    "function", "getopts",
    "hash",    "if",	  "in",	      "jobs", "local", "read",	"readonly", "return",	"select",
    "set",     "shift",	  "source",   "then", "times", "trap",	"type",	    "ulimit",	"umask",
    "unalias", "unset",	  "until",    "wait", "while",
};

static bool is_shell_word(const char *word)
{
	for (size_t i = 0; i < ARRAY_SIZE(shell_words); i++)
		if (!strcmp(word, shell_words[i]))
			return true;
	return false;
}

/*
 * Appends the content of the quoted part starting at *p (on the opening quote) to word and
 * advances *p past the closing quote. Returns -1 for an unterminated quote or a double-quoted
 * part that the shell would expand.
 */
static int add_quoted(struct strbuf *word, const char **p)
{
	char quote = **p;
	const char *start = *p + 1;
	const char *end = start;

	while (*end && *end != quote) {
		/* Inside "...", $ ` and \ still expand; a newline anywhere is left to sh. */
		if (*end == '\n' || (quote == '"' && strchr("$`\\", *end)))
			return -1;
		end++;
	}
	if (!*end)
		return -1;
	strbuf_add(word, start, (size_t)(end - start));
	*p = end + 1;
	return 0;
}

void cmdline_free(char **argv)
{
	if (!argv)
		return;
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}

char **cmdline_split(const char *command)
{
	char **argv = NULL;
	size_t nr = 0, alloc = 0;
	struct strbuf word = STRBUF_INIT;
	bool in_word = false, ok = false;
	const char *p = command;

	/* argv always keeps one free slot and a NULL terminator so cmdline_free() works. */
	ALLOC_GROW(argv, nr + 1, alloc);
	argv[0] = NULL;
	for (;;) {
		char c = *p;

		if (c == '\0' || c == ' ' || c == '\t') {
			if (in_word) {
				ALLOC_GROW(argv, nr + 2, alloc);
				argv[nr++] = xstrndup(word.buf, word.len);
				argv[nr] = NULL;
				strbuf_reset(&word);
				in_word = false;
			}
			if (!c)
				break;
			p++;
			continue;
		}
		if (c == '\'' || c == '"') {
			if (add_quoted(&word, &p) < 0)
				goto out;
			in_word = true;
			continue;
		}
		if (strchr(shell_chars, c))
			goto out;
		/* FOO=bar cmd: an assignment, which only a shell performs. */
		if (c == '=' && nr == 0)
			goto out;
		strbuf_addch(&word, c);
		in_word = true;
		p++;
	}
	if (nr == 0 || is_shell_word(argv[0]))
		goto out;
	ok = true;
out:
	strbuf_release(&word);
	if (!ok) {
		cmdline_free(argv);
		argv = NULL;
	}
	return argv;
}

bool cmdline_needs_shell(const char *command)
{
	char **argv = cmdline_split(command);
	bool shell = !argv;

	cmdline_free(argv);
	return shell;
}

void cmdline_add_shell_quoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}
