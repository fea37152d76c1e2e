# bindiff on bad input: one-line errors naming the file, exit 2.
. "$SRCDIR/tests/cli/lib/common.bash"

printf 'int scale(int x) { return x * 3 + 1; }\nint main(void) { return scale(2); }\n' >p.c
cc -O2 -g p.c -o prog && cc -O2 -c p.c -o p.o || fail "cannot compile"

expect_exit 2 "$REVPERF" bindiff prog missing
expect_grep "^revperf: error: cannot read binary 'missing': No such file or directory$" err.txt
expect_one_line err.txt

printf 'this is a text file, not a program\n' >notelf
expect_exit 2 "$REVPERF" bindiff notelf prog
expect_grep '^revperf: error: notelf: not an ELF file' err.txt
expect_one_line err.txt

head -c 1000 prog >truncated
expect_exit 2 "$REVPERF" bindiff prog truncated
expect_grep '^revperf: error: truncated: truncated ELF file' err.txt
expect_one_line err.txt
head -c 40 prog >stub
expect_exit 2 "$REVPERF" bindiff stub prog
expect_grep '^revperf: error: stub: truncated or corrupt ELF' err.txt
expect_one_line err.txt

# The same object file claiming another machine (e_machine at offset 18).
patch_machine() { # IN OUT MACHINE
	python3 -c "import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[18:20] = int(sys.argv[3]).to_bytes(2, 'little'); open(sys.argv[2], 'wb').write(b)" "$@"
}
patch_machine p.o riscv.o 243
expect_exit 2 "$REVPERF" bindiff p.o riscv.o
expect_grep '^revperf: error: riscv.o: unsupported architecture riscv \(bindiff reads x86-64 and aarch64\)$' err.txt
expect_one_line err.txt
patch_machine p.o arm.o 183
expect_exit 2 "$REVPERF" bindiff p.o arm.o
expect_grep '^revperf: error: p.o is x86-64 but arm.o is aarch64: compare two builds for the same architecture$' err.txt
expect_one_line err.txt

# Fully stripped: nothing to compare.
cp prog stripped && strip stripped
expect_exit 2 "$REVPERF" bindiff stripped stripped
expect_grep '^revperf: error: stripped: stripped, and it exports no functions' err.txt

# Usage errors.
expect_exit 2 "$REVPERF" bindiff prog
expect_grep 'expected OLD and NEW files, got 1 argument' err.txt
expect_one_line err.txt
expect_exit 2 "$REVPERF" bindiff --format yaml prog prog
expect_grep "unknown format 'yaml'" err.txt
expect_exit 2 "$REVPERF" bindiff a b c
expect_grep "unexpected argument 'c'" err.txt
echo ok
