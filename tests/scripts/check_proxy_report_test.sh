#!/usr/bin/env bash
# scripts/check_proxy_report.py on a real `heptane proxy --quick` report:
#   tests/scripts/check_proxy_report_test.sh REPORT.yaml
# - the report passes (--require-valid);
# - each deliberately broken copy fails with exit 1 and names what is wrong: a failed check in a
#   VALID report, a missing key, a key the schema does not know, a figure of merit that is not
#   its definition, another schema version, an unknown halo path or none with several ranks, a
#   version 2 report with version 3's halo_path, an official run with deviations, a string where a
#   number belongs, a missing or failed secondary variant, a kernel sum that is not the sum;
# - a file that is not YAML exits 2.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
checker="$root/scripts/check_proxy_report.py"
if [[ $# -ne 1 || ! -f "$1" ]]; then
  echo "usage: $0 REPORT.yaml (an existing report)" >&2
  exit 2
fi
report="$1"
python=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c "import yaml" 2>/dev/null; then python="$p"; break; fi
done
if [[ -z "$python" ]]; then
  echo "FAIL: no python3 with PyYAML (scripts/bootstrap.sh installs python3-yaml)" >&2
  exit 1
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$python" "$checker" "$report" --require-valid

# broken NAME PYTHON-STATEMENT EXPECTED-TEXT: a copy changed by the statement (r is the report)
# must fail with EXPECTED-TEXT in the checker's output.
broken() {
  local name="$1" change="$2" expected="$3" copy="$tmp/$1.yaml" out rc
  "$python" - "$report" "$copy" <<PY
import sys, yaml
r = yaml.safe_load(open(sys.argv[1]))
$change
yaml.safe_dump(r, open(sys.argv[2], "w"), sort_keys=False)
PY
  set +e
  out="$("$python" "$checker" "$copy" 2>&1)"
  rc=$?
  set -e
  if [[ $rc -ne 1 || "$out" != *"$expected"* ]]; then
    echo "FAIL: $name: exit $rc (expected 1), output: $out (expected to contain: $expected)" >&2
    exit 1
  fi
  echo "ok: $name: $out"
}
broken failed_check 'r["validation"][0]["passed"] = False' "result: VALID with failed checks"
broken missing_key 'del r["figure_of_merit"]["gdof_iterations_per_second"]' \
  "figure_of_merit.gdof_iterations_per_second: missing"
broken unknown_key 'r["problem"]["colour"] = "blue"' "report.problem.colour: not in schema"
broken fom 'r["figure_of_merit"]["unknowns_per_second"] *= 1.01' \
  "figure_of_merit.unknowns_per_second"
broken version 'r["schema_version"] = 4' "schema_version: this checker knows (1, 2, 3)"
broken halo_path 'r["halo_path"] = "nvlink"' "halo_path: 'nvlink' is not one of"
broken halo_path_ranks 'r["ranks"] = 2; r["per_rank"].append(dict(r["per_rank"][0], cells=0))' \
  "halo_path: none with 2 ranks"
broken v2_with_halo_path 'r["schema_version"] = 2' "report.halo_path: not in schema version 2"
broken rank_medians 'del r["per_rank"][0]["halo_seconds_median"]' \
  "report.per_rank[0].halo_seconds_median: missing"
broken official 'r["official"] = True' "official: true with deviations"
broken type 'r["solver"]["iterations"] = "many"' "report.solver.iterations: expected int"
broken missing_check 'r["validation"] = r["validation"][:1]' "result: VALID without the checks"
broken secondary_failed 'r["secondary"][1]["validation"][2]["passed"] = False' \
  "result: VALID with failed checks ['k4 reproducibility']"
broken secondary_missing 'r["secondary"] = r["secondary"][:2]' "secondary: ['k3', 'k4'] in a VALID run"
broken kernel_sum 'r["model"]["iteration"]["kernel_sum_bytes"] *= 2' \
  "model.iteration.kernel_sum_bytes"

echo "not: [yaml" > "$tmp/bad.yaml"
set +e
"$python" "$checker" "$tmp/bad.yaml" >/dev/null 2>&1
rc=$?
set -e
if [[ $rc -ne 2 ]]; then
  echo "FAIL: a file that is not YAML: exit $rc (expected 2)" >&2
  exit 1
fi
echo "ok: not YAML: exit 2"
