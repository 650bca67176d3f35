"""One-line summary of a schemathesis run from its NDJSON event report.

Usage: summary.py EVENTS.ndjson SCHEMATHESIS_EXIT_STATUS MODE
Counts operations tested, test cases sent, responses that were server errors (5xx), schema
violations (response_schema_conformance, ndjson_line_conformance) and failed checks (distinct
check and operation pairs). Exits 1 when anything failed, errored, or schemathesis itself exited non-zero.
"""

import json
import sys

SCHEMA_CHECKS = {"response_schema_conformance", "ndjson_line_conformance"}


def main(path, st_status, mode):
    operations, cases, server_errors = set(), set(), set()
    failed, schema_violations, errors = set(), set(), 0
    with open(path, encoding="utf-8") as events:
        for line in events:
            event = json.loads(line)
            finished = event.get("ScenarioFinished")
            if finished is None:
                continue
            if finished["status"] in ("error", "interrupted"):
                errors += 1
            recorder = finished["recorder"]
            if finished["phase"] != "stateful":
                operations.add(recorder["label"])
            for case_id, interaction in recorder.get("interactions", {}).items():
                cases.add(case_id)
                response = interaction.get("response") or {}
                if response.get("status_code", 0) >= 500:
                    server_errors.add(case_id)
            for case_id, checks in recorder.get("checks", {}).items():
                for check in checks:
                    if check["status"] == "failure":
                        failure = (check.get("failure_info") or {}).get("failure") or {}
                        operation = failure.get("operation") or recorder["label"]
                        failed.add((check["name"], operation))
                        if check["name"] in SCHEMA_CHECKS:
                            schema_violations.add(case_id)
    ok = st_status == 0 and not failed and not errors and not server_errors
    print(
        f"fuzz-contract ({mode}): {'PASS' if ok else 'FAIL'}: {len(operations)} operations, {len(cases)} cases, "
        f"{len(server_errors)} server errors, {len(schema_violations)} schema violations, "
        f"{len(failed)} failed checks, {errors} errors"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
