# A stdout callback for the Ansible tests: each task's result per host as one JSON document,
# shaped like ansible.posix's `json` callback ({"plays": [{"tasks": [{"hosts": {...}}]}]}).
# Debian's ansible-core has no JSON stdout callback (that one lives in the ansible.posix
# collection, which ansible-core does not bring), so the tests carry this small one.
from __future__ import annotations

import json

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
name: task_results_json
type: stdout
short_description: each task's result per host as one JSON document (envfix's tests)
description: [each task's result per host as one JSON document, for envfix's tests]
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "stdout"
    CALLBACK_NAME = "task_results_json"

    def __init__(self):
        super().__init__()
        self._plays = []

    def v2_playbook_on_play_start(self, play):
        self._plays.append({"play": {"name": play.get_name()}, "tasks": []})

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._plays[-1]["tasks"].append({"task": {"name": task.get_name()}, "hosts": {}})

    def _record(self, result, **extra):
        entry = dict(result._result)
        entry.update(extra)
        self._plays[-1]["tasks"][-1]["hosts"][result._host.get_name()] = entry

    def v2_runner_on_ok(self, result, **kwargs):
        self._record(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, failed=True)

    def v2_runner_on_unreachable(self, result):
        self._record(result, unreachable=True)

    def v2_runner_on_skipped(self, result):
        self._record(result, skipped=True)

    def v2_on_file_diff(self, result):
        # The module's diff is in its result already; nothing else to print.
        pass

    def v2_playbook_on_stats(self, stats):
        hosts = sorted(stats.processed.keys())
        summary = {h: stats.summarize(h) for h in hosts}
        self._display.display(json.dumps({"plays": self._plays, "stats": summary}, indent=2, sort_keys=True))
