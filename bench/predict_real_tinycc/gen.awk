# bench/predict_real_tinycc/gen.awk: writes a generated C file of N (-v n=N) groups of
# functions (integer expressions, a switch, floating point, struct access, loops over
# arrays, string literals, static tables) and a main() that calls them all; no input, the
# same text on every run. bench/predict_real_tinycc.sh compiles and links it with tcc.
BEGIN {
	print "#include <stdio.h>"
	print "#include <string.h>"
	print "struct rec { int a; long b; double c; char name[16]; struct rec *next; };"
	for (i = 0; i < n; i++) {
		printf "static const int tab%d[8] = { %d, %d, %d, %d, %d, %d, %d, %d };\n", i,
		       i, i * 3 + 1, i * 7 % 11, i + 5, i * i % 97, 13, i % 5, 42 - i % 9
		printf "static int fi%d(int x, int y)\n{\n", i
		printf "\tint r = (x * %d + y) ^ (x >> %d);\n", i % 13 + 1, i % 7 + 1
		printf "\tr += (x & %d) ? y / %d : y %% %d;\n", i % 31 + 1, i % 9 + 2, i % 11 + 3
		printf "\tswitch ((x + %d) %% 6) {\n", i
		for (k = 0; k < 6; k++)
			printf "\tcase %d: r = r * %d - tab%d[%d]; break;\n", k, k + i % 4 + 2, i, (k + i) % 8
		print "\tdefault: r = -r;\n\t}"
		print "\treturn r;\n}"
		printf "static double ff%d(double u, int k)\n{\n", i
		printf "\tdouble s = %d.5;\n\tint j;\n", i % 17
		printf "\tfor (j = 0; j < k; j++)\n\t\ts = s * 0.%d + u / (j + %d.25) - (double)tab%d[j & 7];\n", i % 9 + 1, i % 5 + 1, i
		print "\treturn s;\n}"
		printf "static long fs%d(struct rec *p, int m)\n{\n", i
		print "\tlong t = 0;\n\tint j;"
		printf "\tfor (j = 0; j < m && p; j++, p = p->next) {\n"
		printf "\t\tt += p->a * %d + p->b - (long)p->c;\n", i % 7 + 1
		printf "\t\tif (strcmp(p->name, \"rec%d\") == 0) t ^= %d;\n", i % 50, i
		print "\t}\n\treturn t;\n}"
	}
	print "int main(void)\n{"
	print "\tstatic struct rec rs[64];\n\tlong acc = 0;\n\tdouble d = 0;\n\tint i;"
	print "\tfor (i = 0; i < 64; i++) {"
	print "\t\trs[i].a = i; rs[i].b = 3L * i; rs[i].c = i * 0.5;"
	print "\t\tsprintf(rs[i].name, \"rec%d\", i);"
	print "\t\trs[i].next = i < 63 ? &rs[i + 1] : 0;\n\t}"
	for (i = 0; i < n; i++)
		printf "\tacc += fi%d(%d, %d) + fs%d(rs, %d); d += ff%d(%d.0, %d);\n", i, i, i * 2 + 1, i, i % 64, i, i, i % 8 + 1
	print "\tprintf(\"%ld %.6f\\n\", acc, d);\n\treturn 0;\n}"
}
