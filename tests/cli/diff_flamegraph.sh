# The differential flame graph of revperf diff (-f svg) is readable: as wide as the page
# (width 100%, a viewBox), a search box, a ranked list of the largest changes under the
# graph whose rows link to their frames, also to a frame far too narrow for a label, the
# spread of each change when the sides merge several runs; then in a real browser
# (tests/browser/flamegraph.mjs, chromium + playwright-core from scripts/install-deps.sh)
# at 400 and 1400 px: no horizontal scroll bar, text at its size, a click on a row zooms
# on its frame, the search marks frames and shows the matched share.
. "$SRCDIR/tests/cli/lib/common.bash"

# 40 unchanged functions, `scale` 3x slower, `helper` as much faster (so that the shares of
# the others stay), and `tiny`, 1 in 10,000 of the time, doubled: its frame is about 0.1 px
# wide in a 1200 px picture, yet its change is among the largest.
: >old.folded
: >new.folded
for i in $(seq 1 40); do
	echo "main;steady;work_$i 2000" >>old.folded
	echo "main;steady;work_$i 2000" >>new.folded
done
cat >>old.folded <<'EOF'
main;compute;scale 10000
main;compute;helper 20001
main;tiny 10
EOF
cat >>new.folded <<'EOF'
main;compute;scale 30000
main;compute;helper 11
main;tiny 20
EOF

expect_exit 1 "$REVPERF" diff -f svg -o f.svg old.folded new.folded
python3 - f.svg <<'PY' || fail "f.svg structure"
import sys, xml.dom.minidom
doc = xml.dom.minidom.parse(sys.argv[1])
svg = doc.documentElement
def fail(msg):
    print("FAIL:", msg); sys.exit(1)
if svg.getAttribute("width") != "100%":
    fail("width is %r, not 100%%" % svg.getAttribute("width"))
vb = svg.getAttribute("viewBox").split()
if len(vb) != 4 or vb[2] != "1200":
    fail("viewBox %r" % svg.getAttribute("viewBox"))
inputs = [e for e in doc.getElementsByTagName("input") if e.getAttribute("id") == "search"]
if len(inputs) != 1 or inputs[0].parentNode.tagName != "foreignObject":
    fail("no search box in a foreignObject")
frames = {g.getAttribute("id"): g for g in doc.getElementsByTagName("g")
          if g.getAttribute("class").split()[:1] == ["f"]}
rows = [g for g in doc.getElementsByTagName("g") if g.getAttribute("class") == "top-row"]
if len(rows) != 3:
    fail("%d rows in the ranked list" % len(rows))
listed = []
for r in rows:
    f = frames.get(r.getAttribute("data-f"))
    if f is None:
        fail("row %r links to no drawn frame" % r.getAttribute("data-f"))
    if "top" not in f.getAttribute("class").split():
        fail("frame %s of a row is not outlined" % f.getAttribute("id"))
    listed.append(f.getElementsByTagName("title")[0].firstChild.data.split("\n")[0])
outlined = [g for g in frames.values() if "top" in g.getAttribute("class").split()]
if len(outlined) != len(rows):
    fail("%d outlined frames, %d rows" % (len(outlined), len(rows)))
if listed != ["scale", "helper", "tiny"]:
    fail("ranked list %r: expected scale, helper, tiny" % listed)
tiny = [g for g in frames.values() if g.getElementsByTagName("title")[0].firstChild.data.startswith("tiny\n")][0]
w = float(tiny.getElementsByTagName("rect")[0].getAttribute("width"))
if w >= 0.3:
    fail("tiny is %.2f px wide: the test needs a frame narrower than what is drawn" % w)
PY

# Several runs per side: each change with its spread.
expect_exit 1 "$REVPERF" diff -f svg -o runs.svg --baseline old.folded old.folded \
	--target new.folded new.folded
expect_grep '± one sd over the runs of both sides' runs.svg
expect_grep '<tspan class="lead"> 1\. +\+[0-9.]+ ± 0\.00  </tspan>' runs.svg

# In a browser. Chromium and playwright-core come with `make test` (scripts/install-deps.sh);
# missing, the test fails: it must not pass unseen.
BROWSER_DIR=$SRCDIR/tests/browser
[ -x /usr/bin/chromium ] || fail "no /usr/bin/chromium: run scripts/install-deps.sh"
command -v node >/dev/null || fail "no node: run scripts/install-deps.sh"
[ -d "$BROWSER_DIR/node_modules/playwright-core" ] ||
	fail "no playwright-core in $BROWSER_DIR/node_modules: run scripts/install-deps.sh"
shots=${BUILDDIR:-$TEST_TMP}
node "$BROWSER_DIR/flamegraph.mjs" "$PWD/f.svg" "$shots" 'work_1[0-9]' tiny ||
	fail "the browser test of the flame graph failed"
[ -s "$shots/flamegraph-400.png" ] && [ -s "$shots/flamegraph-1400.png" ] || fail "no screenshots"
echo ok
