#include "cli/options.h"

#include <stdarg.h>
#include <string.h>

#include "util/common.h"
#include "util/suggest.h"

int usage_error(const char *cmd, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT, sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	/* Arguments quoted in the message are shown, not obeyed, by the terminal. */
	strbuf_addf(&sb, "revperf %s: ", cmd);
	strbuf_add_printable(&sb, msg.buf);
	error_record_message(sb.buf + strlen("revperf : ") + strlen(cmd));
	strbuf_addf(&sb, "; see 'revperf %s -h'\n", cmd);
	fputs(sb.buf, stderr);
	strbuf_release(&msg);
	strbuf_release(&sb);
	return -1;
}

static const struct option *find_long(const struct option *opts, const char *name, size_t len)
{
	for (; opts->type != OPT_END; opts++)
		if (opts->long_name && strlen(opts->long_name) == len &&
		    !strncmp(opts->long_name, name, len))
			return opts;
	return NULL;
}

static const struct option *find_short(const struct option *opts, char c)
{
	for (; opts->type != OPT_END; opts++)
		if (opts->short_name == c)
			return opts;
	return NULL;
}

/* An unknown --name: the error, with the nearest option of the command when one is near. */
static int unknown_long(const struct command_help *help, const char *name, size_t len)
{
	const char *cands[128], *near[2];
	size_t n = 0;
	char *word = xstrndup(name, len);
	int ret;
	for (const struct option *o = help->options; o && o->type != OPT_END; o++)
		if (o->long_name && n < ARRAY_SIZE(cands) - 1)
			cands[n++] = o->long_name;
	cands[n++] = "help";
	switch (suggest_nearest(word, cands, n, near, 2)) {
	case 0: ret = usage_error(help->name, "unknown option '--%s'", word); break;
	case 1:
		ret = usage_error(help->name, "unknown option '--%s' (did you mean '--%s'?)", word,
				  near[0]);
		break;
	default:
		ret = usage_error(help->name,
				  "unknown option '--%s' (did you mean '--%s' or '--%s'?)", word,
				  near[0], near[1]);
	}
	free(word);
	return ret;
}

static int set_value(const struct command_help *help, const struct option *o, const char *arg)
{
	struct opt_overrides *ov;
	switch (o->type) {
	case OPT_FLAG:
		*(bool *)o->value = true;
		return 0;
	case OPT_STRING:
	case OPT_OPTARG:
		*(const char **)o->value = arg;
		return 0;
	case OPT_CONFIG:
		ov = o->value;
		if (ov->nr >= ARRAY_SIZE(ov->items))
			return usage_error(help->name, "too many options");
		ov->items[ov->nr].key = o->config_key;
		ov->items[ov->nr].value = arg;
		ov->items[ov->nr].flag = o->long_name;
		ov->nr++;
		return 0;
	default:
		return -1;
	}
}

int parse_options(int argc, char **argv, const struct command_help *help, const char **args,
		  int max_args)
{
	return parse_options_split(argc, argv, help, args, max_args, NULL);
}

int parse_options_split(int argc, char **argv, const struct command_help *help,
			const char **args, int max_args, int *split)
{
	int i, nargs = 0;
	bool only_args = false;
	if (split)
		*split = -1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct option *o;
		const char *arg = NULL;
		if (only_args || a[0] != '-' || !a[1]) {
			if (nargs >= max_args)
				return usage_error(help->name, "unexpected argument '%s'", a);
			args[nargs++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_args = true;
			if (split)
				*split = nargs;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			options_usage(stdout, help);
			return -2;
		}
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			o = find_long(help->options, a + 2, len);
			if (!o)
				return unknown_long(help, a + 2, len);
			if (o->type == OPT_FLAG) {
				if (eq)
					return usage_error(help->name, "option '--%s' takes no value",
							   o->long_name);
			} else if (o->type == OPT_OPTARG) {
				arg = eq ? eq + 1 : o->config_key;
			} else if (eq) {
				arg = eq + 1;
			} else if (i + 1 < argc) {
				arg = argv[++i];
			} else {
				return usage_error(help->name, "option '--%s' needs a value (%s)",
						   o->long_name, o->argh);
			}
		} else {
			o = find_short(help->options, a[1]);
			if (!o)
				return usage_error(help->name, "unknown option '-%c'", a[1]);
			if (o->type == OPT_FLAG) {
				if (a[2])
					return usage_error(help->name, "option '-%c' takes no value",
							   a[1]);
			} else if (a[2]) {
				arg = a + 2;
			} else if (i + 1 < argc) {
				arg = argv[++i];
			} else {
				return usage_error(help->name, "option '-%c' needs a value (%s)", a[1],
						   o->argh);
			}
		}
		if (set_value(help, o, arg))
			return -1;
	}
	return nargs;
}

static void option_label(struct strbuf *sb, const struct option *o)
{
	if (o->short_name)
		strbuf_addf(sb, "-%c, ", o->short_name);
	strbuf_addf(sb, "--%s", o->long_name);
	if (o->argh)
		strbuf_addf(sb, o->type == OPT_OPTARG ? "[=%s]" : " %s", o->argh);
}

void options_usage(FILE *f, const struct command_help *help)
{
	const struct option *o;
	const char *const *u;
	for (u = help->usage; *u; u++)
		fprintf(f, "%s revperf %s\n", u == help->usage ? "usage:" : "   or:", *u);
	fprintf(f, "\n%s\n", help->description);
	if (help->options && help->options->type != OPT_END)
		fputc('\n', f);
	for (o = help->options; o && o->type != OPT_END; o++) {
		struct strbuf sb = STRBUF_INIT;
		option_label(&sb, o);
		if (sb.len <= 24)
			fprintf(f, "    %-24s  %s", sb.buf, o->help);
		else
			fprintf(f, "    %s\n    %-24s  %s", sb.buf, "", o->help);
		if (o->type == OPT_CONFIG)
			fprintf(f, " [config: %s]", o->config_key);
		fputc('\n', f);
		strbuf_release(&sb);
	}
	fprintf(f, "    %-24s  %s\n", "-h, --help", "show this help");
}

void options_usage_markdown(FILE *f, const struct command_help *help)
{
	const struct option *o;
	const char *const *u;
	fprintf(f, "## revperf %s\n\n```\n", help->name);
	for (u = help->usage; *u; u++)
		fprintf(f, "revperf %s\n", *u);
	fprintf(f, "```\n\n%s\n\n", help->description);
	for (o = help->options; o && o->type != OPT_END; o++) {
		struct strbuf sb = STRBUF_INIT;
		option_label(&sb, o);
		fprintf(f, "- `%s`: %s", sb.buf, o->help);
		if (o->type == OPT_CONFIG)
			fprintf(f, " (config key `%s`)", o->config_key);
		fputc('\n', f);
		strbuf_release(&sb);
	}
	fprintf(f, "- `-h, --help`: show this help\n\n");
}

void options_split_sides(int argc, char **argv, char ***rest, int *nr_rest, char ***side,
			 int nr_side[2])
{
	int cur = -1;

	*rest = xcalloc((size_t)argc + 1, sizeof(**rest));
	side[0] = xcalloc((size_t)argc + 1, sizeof(**side));
	side[1] = xcalloc((size_t)argc + 1, sizeof(**side));
	nr_side[0] = nr_side[1] = 0;
	(*rest)[0] = argv[0];
	*nr_rest = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			/* The rest is positional: parse_options() sees the "--" too. */
			while (i < argc)
				(*rest)[(*nr_rest)++] = argv[i++];
			break;
		}
		if (!strcmp(argv[i], "--baseline") || !strcmp(argv[i], "--target")) {
			cur = !strcmp(argv[i], "--target");
			continue;
		}
		if (!strncmp(argv[i], "--baseline=", 11) || !strncmp(argv[i], "--target=", 9)) {
			int s = argv[i][2] == 't';
			side[s][nr_side[s]++] = strchr(argv[i], '=') + 1;
			cur = -1;
			continue;
		}
		if (cur >= 0 && (argv[i][0] != '-' || !argv[i][1])) { /* "-": standard input */
			side[cur][nr_side[cur]++] = argv[i];
			continue;
		}
		cur = -1;
		(*rest)[(*nr_rest)++] = argv[i];
	}
}

int stdin_at_most_once(const char *cmd, const char *const *args, int n)
{
	int seen = 0;
	for (int i = 0; i < n; i++)
		if (!strcmp(args[i], "-") && ++seen > 1)
			return usage_error(cmd, "standard input ('-') can be read only once: give "
						"'-' for one file, name the others");
	return 0;
}
