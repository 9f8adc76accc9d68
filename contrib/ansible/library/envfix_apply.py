#!/usr/bin/python
# -*- coding: utf-8 -*-
# envfix_apply: runs `envfix apply --json SPEC` on the managed host and reports what it did, the
# Ansible way (changed, check mode, diff, failure with envfix's own message). docs/provisioning.md.
from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
---
module: envfix_apply
short_description: Bring GPU Python environments (venvs, ComfyUI, Forge, A1111 ...) to an envfix spec
description:
  - Runs C(envfix apply --json SPEC) on the managed host. envfix plans the PyTorch build that runs on the
    host's GPU and driver (or installs a lock file's exact wheels) for every environment the spec names,
    and changes only what differs, so a second run changes nothing.
  - Check mode runs C(envfix apply --check); nothing is changed, and C(changed) says whether something would be.
  - With C(--diff), each changed environment shows its package versions before and after.
options:
  spec:
    description: The spec file on the managed host (YAML, version 1; see envfix's docs/provisioning.md).
    required: true
    type: path
  envfix:
    description: The envfix program, a path or a name on C(PATH).
    type: str
    default: envfix
  lang:
    description: Language of envfix's messages (C(en) or C(zh)).
    type: str
    choices: [en, zh]
    default: en
  timeout:
    description: Seconds envfix may take (downloads of a framework stack are gigabytes); 0 for no limit.
    type: int
    default: 3600
author:
  - envfix developers
'''

EXAMPLES = r'''
- name: GPU stacks of the render workstations
  envfix_apply:
    spec: /etc/envfix/workstation.yaml
  register: envfix

- name: What would change (no change made)
  envfix_apply:
    spec: /etc/envfix/workstation.yaml
  check_mode: true
'''

RETURN = r'''
environments:
  description: One entry per environment of the spec, as C(envfix apply --json) gives it (status, changes
    with before/after versions, transaction, snapshot, verify, findings, error).
  returned: always
  type: list
  elements: dict
summary:
  description: Counts of changed, unchanged and failed environments.
  returned: always
  type: dict
envfix_rc:
  description: envfix's exit code (0 unchanged, 80 changed, 81 an environment failed; others are errors). Not
    C(rc), because Ansible reads a non-zero C(rc) as a failed task, and 80 is a success.
  returned: always
  type: int
'''

import json

from ansible.module_utils.basic import AnsibleModule

CHANGED = 80
FAILED = 81


def versions_text(env, side):
    lines = []
    for c in env.get("changes") or []:
        v = c.get(side)
        if v is not None:
            lines.append("%s==%s" % (c["name"], v))
    return "\n".join(sorted(lines)) + ("\n" if lines else "")


def diff_of(environments):
    out = []
    for env in environments:
        if not env.get("changes"):
            continue
        header = "%s (%s)" % (env.get("name"), env.get("path") or env.get("kind"))
        out.append({"before_header": header, "after_header": header,
                    "before": versions_text(env, "before"), "after": versions_text(env, "after")})
    return out


def last_line(text):
    lines = [l for l in (text or "").splitlines() if l.strip()]
    return lines[-1] if lines else ""


def main():
    module = AnsibleModule(
        argument_spec=dict(
            spec=dict(type="path", required=True),
            envfix=dict(type="str", default="envfix"),
            lang=dict(type="str", default="en", choices=["en", "zh"]),
            timeout=dict(type="int", default=3600),
        ),
        supports_check_mode=True,
    )
    p = module.params
    program = p["envfix"]
    if "/" not in program:
        program = module.get_bin_path(program, required=True)
    args = [program, "--json", "--lang", p["lang"], "apply", p["spec"]]
    if module.check_mode:
        args.append("--check")
    if p["timeout"] > 0:
        args = ["timeout", "--signal=INT", str(p["timeout"])] + args
    rc, out, err = module.run_command(args)

    try:
        doc = json.loads(out)
    except ValueError:
        module.fail_json(msg=last_line(err) or last_line(out) or "envfix exited with %d" % rc, envfix_rc=rc, stderr=err, changed=False)

    environments = doc.get("environments") or []
    summary = doc.get("summary") or {}
    if doc.get("error") or rc not in (0, CHANGED, FAILED):
        error = doc.get("error") or {}
        module.fail_json(msg=error.get("message") or last_line(err) or "envfix exited with %d" % rc,
                         envfix_rc=rc, error=error, changed=False, environments=environments)

    result = dict(changed=bool(doc.get("changed")), environments=environments, summary=summary, envfix_rc=rc)
    if module._diff:
        result["diff"] = diff_of(environments)
    if rc == FAILED:
        failures = ["%s: %s" % (e.get("name"), (e.get("error") or {}).get("message", "failed"))
                    for e in environments if e.get("status") == "failed"]
        module.fail_json(msg="; ".join(failures), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
