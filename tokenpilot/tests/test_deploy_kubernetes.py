"""deploy/kubernetes, offline: each kustomization rendered (its ``resources`` read here, since
kustomize is neither a Debian nor a PyPI package; where ``kubectl`` is on PATH its own
``kubectl kustomize`` must render the same objects), the core kinds validated against the
Kubernetes API's schemas (PyPI's ``kubernetes-validate``, strict: no unknown field), the
Gateway API Inference Extension's kinds against the fields of their spec that these files use
(no published schema of them is on PyPI), and the references between the objects checked: the
selectors, ports, volumes, the files and flags the commands are given, the Redis the gateways
share, the Service the InferencePool names as its endpoint picker.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest
import typer
import yaml

from tokenpilot.cli import app
from tokenpilot.config_section import from_mapping
from tokenpilot.epp.endpoints import address_of, parse_endpoints
from tokenpilot.gateway.config import ConfigError, GatewayConfig

KUBE = Path(__file__).resolve().parents[2] / "deploy" / "kubernetes"
BASES = ("gateway", "epp")
K8S_VERSION = "1.30.0"  # gRPC probes are GA from 1.27; an InferencePool needs a recent cluster
KUBECTL = shutil.which("kubectl")
CORE_GROUPS = {"v1", "apps/v1", "policy/v1", "rbac.authorization.k8s.io/v1"}

# The fields of GIE v1.0's InferencePool (inference.networking.k8s.io/v1; its API reference,
# gateway-api-inference-extension.sigs.k8s.io/reference/spec) that these files use, with the
# constraints the spec gives them; a misspelt or misplaced field fails (no other is allowed).
_NAME = {"type": "string", "minLength": 1, "maxLength": 253}
_PORT = {"type": "object", "additionalProperties": False, "required": ["number"],
         "properties": {"number": {"type": "integer", "minimum": 1, "maximum": 65535}}}
_META = {"type": "object", "required": ["name"],
         "properties": {"name": _NAME, "namespace": {"type": "string"},
                        "labels": {"type": "object"}}}
INFERENCE_POOL = {
    "type": "object", "additionalProperties": False, "required": ["apiVersion", "kind", "spec"],
    "properties": {
        "apiVersion": {"const": "inference.networking.k8s.io/v1"},
        "kind": {"const": "InferencePool"}, "metadata": _META,
        "spec": {"type": "object", "additionalProperties": False,
                 "required": ["selector", "targetPorts", "endpointPickerRef"],
                 "properties": {
                     "selector": {"type": "object", "additionalProperties": False,
                                  "required": ["matchLabels"], "properties": {"matchLabels": {
                                      "type": "object", "minProperties": 1,
                                      "additionalProperties": {"type": "string",
                                                               "maxLength": 63}}}},
                     "targetPorts": {"type": "array", "minItems": 1, "maxItems": 8,
                                     "items": _PORT},
                     "endpointPickerRef": {
                         "type": "object", "additionalProperties": False, "required": ["name"],
                         "properties": {
                             "group": {"type": "string"},
                             "kind": {"type": "string", "minLength": 1, "maxLength": 63},
                             "name": _NAME, "port": _PORT,
                             "failureMode": {"enum": ["FailOpen", "FailClose"]}}}}}}}
# The fields of Gateway API v1's HTTPRoute (gateway.networking.k8s.io/v1) these files use.
_REF = {"type": "object", "additionalProperties": False, "required": ["name"],
        "properties": {"group": {"type": "string"}, "kind": {"type": "string"}, "name": _NAME}}
HTTP_ROUTE = {
    "type": "object", "additionalProperties": False, "required": ["apiVersion", "kind", "spec"],
    "properties": {
        "apiVersion": {"const": "gateway.networking.k8s.io/v1"},
        "kind": {"const": "HTTPRoute"}, "metadata": _META,
        "spec": {"type": "object", "additionalProperties": False, "properties": {
            "parentRefs": {"type": "array", "items": _REF},
            "rules": {"type": "array", "items": {
                "type": "object", "additionalProperties": False, "properties": {
                    "matches": {"type": "array", "items": {
                        "type": "object", "additionalProperties": False, "properties": {
                            "path": {"type": "object", "additionalProperties": False,
                                     "properties": {
                                         "type": {"enum": ["Exact", "PathPrefix",
                                                           "RegularExpression"]},
                                         "value": {"type": "string"}}}}}},
                    "backendRefs": {"type": "array", "items": _REF},
                    "timeouts": {"type": "object", "additionalProperties": False,
                                 "properties": {"request": {
                                     "type": "string",
                                     "pattern": r"^([0-9]{1,5}(h|m|s|ms)){1,4}$"}}}}}}}}}}
CUSTOM = {"InferencePool": INFERENCE_POOL, "HTTPRoute": HTTP_ROUTE}


def render(base: str) -> list[dict]:
    """The objects ``kubectl apply -k deploy/kubernetes/BASE`` would create: each file of the
    kustomization's ``resources`` in order, the kustomization's namespace set on each (and,
    as kustomize does, on the ServiceAccounts a RoleBinding names)."""
    root = KUBE / base
    k = yaml.safe_load((root / "kustomization.yaml").read_text())
    assert set(k) <= {"apiVersion", "kind", "namespace", "resources"}, \
        "a kustomize feature this renderer does not apply: teach render() first"
    out = []
    for name in k["resources"]:
        for doc in yaml.safe_load_all((root / name).read_text()):
            if doc is not None:
                doc["metadata"]["namespace"] = k["namespace"]
                for subject in doc.get("subjects", []):
                    if subject["kind"] == "ServiceAccount":
                        subject["namespace"] = k["namespace"]
                out.append(doc)
    return out


def by_kind(docs: list[dict], kind: str) -> dict[str, dict]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


@pytest.mark.parametrize("base", BASES)
def test_every_manifest_is_in_its_kustomization(base) -> None:
    root = KUBE / base
    listed = yaml.safe_load((root / "kustomization.yaml").read_text())["resources"]
    assert sorted(listed) == sorted(p.name for p in root.glob("*.yaml")
                                    if p.name != "kustomization.yaml")


@pytest.mark.skipif(KUBECTL is None, reason="no kubectl on PATH: the rendering is checked "
                    "against kustomize itself only where it is installed")
@pytest.mark.parametrize("base", BASES)
def test_rendering_matches_kubectl_kustomize(base) -> None:
    out = subprocess.run([KUBECTL, "kustomize", str(KUBE / base)], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    theirs = [d for d in yaml.safe_load_all(out) if d]
    key = lambda d: (d["kind"], d["metadata"]["name"])  # noqa: E731
    assert sorted(theirs, key=key) == sorted(render(base), key=key)


@pytest.mark.parametrize("base", BASES)
def test_core_kinds_are_valid_kubernetes(base) -> None:
    core = [d for d in render(base) if d["apiVersion"] in CORE_GROUPS]
    assert core
    for d in core:
        kubernetes_validate.validate(d, K8S_VERSION, strict=True)


def test_inference_extension_kinds_match_their_spec() -> None:
    docs = [d for d in render("epp") if d["kind"] in CUSTOM]
    assert sorted(d["kind"] for d in docs) == ["HTTPRoute", "InferencePool"]
    for d in docs:
        jsonschema.validate(d, CUSTOM[d["kind"]])
    bad = {**docs[0], "spec": {**docs[0]["spec"], "targetPortNumber": 8000}}  # pre-v1 field
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, CUSTOM[bad["kind"]])


def pod_spec(d: dict) -> dict:
    return d["spec"]["template"]["spec"]


@pytest.mark.parametrize("base", BASES)
def test_services_volumes_and_probes_point_at_what_exists(base) -> None:
    docs = render(base)
    deployments, config_maps = by_kind(docs, "Deployment"), by_kind(docs, "ConfigMap")
    for svc in by_kind(docs, "Service").values():
        sel = svc["spec"]["selector"]
        pods = [d for d in deployments.values()
                if sel.items() <= d["spec"]["template"]["metadata"]["labels"].items()]
        assert len(pods) == 1, f"Service {svc['metadata']['name']} selects {len(pods)} Deployments"
        ports = {p["name"]: p["containerPort"] for c in pod_spec(pods[0])["containers"]
                 for p in c.get("ports", [])}
        for p in svc["spec"]["ports"]:
            assert p["targetPort"] in ports, p
    for d in deployments.values():
        spec = pod_spec(d)
        assert d["spec"]["selector"]["matchLabels"].items() <= \
            d["spec"]["template"]["metadata"]["labels"].items()
        volumes = {v["name"]: v for v in spec["volumes"]} if "volumes" in spec else {}
        for v in volumes.values():
            if "configMap" in v:
                assert v["configMap"]["name"] in config_maps
        for c in spec.get("initContainers", []) + spec["containers"]:
            for m in c.get("volumeMounts", []):
                assert m["name"] in volumes, (c["name"], m)
    if base == "epp":
        sa = pod_spec(deployments["tokenpilot-epp"])["serviceAccountName"]
        binding = by_kind(docs, "RoleBinding")["tokenpilot-epp"]
        assert [(b["kind"], b["name"]) for b in binding["subjects"]] == [("ServiceAccount", sa)]
        assert binding["roleRef"]["name"] in by_kind(docs, "Role")


def command_flags(command: str) -> set[str]:
    cmd = typer.main.get_command(app).commands[command]
    return {o for p in cmd.params for o in p.opts}


def args_of(container: dict) -> dict[str, str]:
    a = container["args"]
    return dict(zip(a[1::2], a[2::2], strict=True))


def mounted(spec: dict, container: dict, path: str, docs: list[dict]) -> str:
    """What ``path`` is in ``container``: ``configmap:NAME/KEY`` or ``volume:NAME``."""
    volumes = {v["name"]: v for v in spec["volumes"]}
    for m in container["volumeMounts"]:
        if path.startswith(m["mountPath"] + "/"):
            v = volumes[m["name"]]
            key = path[len(m["mountPath"]) + 1:]
            if "configMap" in v:
                cm = by_kind(docs, "ConfigMap")[v["configMap"]["name"]]
                assert key in cm["data"], f"{path}: no key {key} in its ConfigMap"
                return f"configmap:{cm['metadata']['name']}/{key}"
            return f"volume:{m['name']}"
    raise AssertionError(f"{path} is on no volume of {container['name']}")


def load_gateway_file(text: str, where: str) -> tuple[GatewayConfig, dict | None]:
    """The gateway file of a ConfigMap read as ``tokenpilot serve`` reads it. Its ``state``
    section (the shared state on Redis) is another change's key: read whole where this
    GatewayConfig knows it, else set aside and returned for its shape to be checked."""
    data = yaml.safe_load(text)
    state = None
    if "state" not in {f.name for f in GatewayConfig.__dataclass_fields__.values()}:
        state = data.pop("state", None)
    return from_mapping(GatewayConfig, data, where, ConfigError), state


def test_gateway_replicas_share_the_redis_of_the_base() -> None:
    docs = render("gateway")
    d = by_kind(docs, "Deployment")["tokenpilot-gateway"]
    assert d["spec"]["replicas"] >= 2
    c = pod_spec(d)["containers"][0]
    assert c["command"] == ["tokenpilot"] and c["args"][0] == "serve"
    flags = args_of(c)
    assert set(flags) <= command_flags("serve")
    assert mounted(pod_spec(d), c, flags["--config"], docs) == \
        "configmap:tokenpilot-gateway/gateway.yaml"
    cfg, state = load_gateway_file(by_kind(docs, "ConfigMap")["tokenpilot-gateway"]["data"][
        "gateway.yaml"], "gateway.yaml")
    assert cfg.listen.host == "0.0.0.0" and cfg.backends
    assert cfg.listen.port == c["ports"][0]["containerPort"]
    if state is None:  # read by GatewayConfig itself
        state = {k: getattr(cfg.state, k) for k in ("store", "url")}  # type: ignore[attr-defined]
    assert state["store"] == "redis"
    redis = by_kind(docs, "Service")["tokenpilot-redis"]
    assert state["url"] == f"redis://{redis['metadata']['name']}:{redis['spec']['ports'][0]['port']}/0"
    assert set(state) <= {"store", "url", "key_prefix", "on_failure"}
    assert state.get("on_failure", "open") in ("open", "closed")


def test_the_picker_serves_the_port_the_inference_pool_names() -> None:
    docs = render("epp")
    d = by_kind(docs, "Deployment")["tokenpilot-epp"]
    spec = pod_spec(d)
    epp = next(c for c in spec["containers"] if c["name"] == "epp")
    assert epp["command"] == ["tokenpilot"] and epp["args"][0] == "epp"
    flags = args_of(epp)
    assert set(flags) <= command_flags("epp")
    ports = {p["name"]: p["containerPort"] for p in epp["ports"]}
    assert int(flags["--port"]) == ports["grpc"] and int(flags["--metrics-port"]) == ports[
        "metrics"]
    assert epp["readinessProbe"]["grpc"] == {"port": ports["grpc"], "service": "readiness"}
    assert mounted(spec, epp, flags["--endpoints"], docs) == "volume:pool"
    cfg_path = mounted(spec, epp, flags["--config"], docs)
    assert cfg_path == "configmap:tokenpilot-epp/gateway.yaml"
    cfg, _ = load_gateway_file(by_kind(docs, "ConfigMap")["tokenpilot-epp"]["data"][
        "gateway.yaml"], "gateway.yaml")
    assert not cfg.backends  # the picker refuses a config with backends: its pool is the file
    pool = by_kind(docs, "InferencePool")["vllm-llama3-8b"]["spec"]
    svc = by_kind(docs, "Service")["tokenpilot-epp"]
    ref = pool["endpointPickerRef"]
    assert (ref["kind"], ref["name"]) == ("Service", svc["metadata"]["name"])
    grpc_port = next(p for p in svc["spec"]["ports"] if p["targetPort"] == "grpc")
    assert ref["port"]["number"] == grpc_port["port"]
    route = by_kind(docs, "HTTPRoute")["llm"]["spec"]["rules"][0]["backendRefs"][0]
    assert (route["kind"], route["name"]) == ("InferencePool", "vllm-llama3-8b")
    # pool-sync lists the very Pods the InferencePool selects, at its target port.
    env = {e["name"]: e["value"] for e in spec["initContainers"][0]["env"]}
    labels = pool["selector"]["matchLabels"]
    assert env["SELECTOR"] == ",".join(f"{k}={v}" for k, v in labels.items())
    assert int(env["PORT"]) == pool["targetPorts"][0]["number"]
    assert mounted(spec, spec["initContainers"][0], env["POOL_FILE"], docs) == "volume:pool"


def test_pool_sync_writes_an_endpoints_file_the_picker_reads(tmp_path) -> None:
    """The ConfigMap's pool-sync.sh run by a POSIX shell, with a stand-in ``kubectl`` on PATH
    answering as the API server would list two Pods (no cluster here): the file it writes is
    one the picker reads, naming those Pods at the pool's target port."""
    docs = render("epp")
    script = tmp_path / "pool-sync.sh"
    script.write_text(by_kind(docs, "ConfigMap")["tokenpilot-epp"]["data"]["pool-sync.sh"])
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    kubectl = bin_dir / "kubectl"
    kubectl.write_text('#!/bin/sh\necho "$@" > "$ARGS_FILE"\nprintf "10.1.0.7\\n10.1.0.9\\n"\n')
    kubectl.chmod(0o755)
    spec = pod_spec(by_kind(docs, "Deployment")["tokenpilot-epp"])
    env = {e["name"]: e["value"] for e in spec["initContainers"][0]["env"]}
    pool = tmp_path / "endpoints.yaml"
    run_env = {**os.environ, **env, "POOL_FILE": str(pool), "ARGS_FILE": str(tmp_path / "a"),
               "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    subprocess.run(["sh", str(script), "--once"], env=run_env, check=True, timeout=30)
    got = parse_endpoints(yaml.safe_load(pool.read_text()), str(pool))
    assert [address_of(c) for c in got] == [f"10.1.0.7:{env['PORT']}", f"10.1.0.9:{env['PORT']}"]
    assert {(c.gpu, c.model, c.kind) for c in got} == {(env["GPU"], env["MODEL"], "vllm")}
    called = (tmp_path / "a").read_text().split()
    assert called[:2] == ["get", "pods"] and called[called.index("-l") + 1] == env["SELECTOR"]
    kubectl.write_text("#!/bin/sh\ntrue\n")  # no Pods: an empty pool, still a valid file
    subprocess.run(["sh", str(script), "--once"], env=run_env, check=True, timeout=30)
    assert parse_endpoints(yaml.safe_load(pool.read_text()), str(pool)) == []
