"""``tokenpilot epp``: the gateway's admission and router as a Kubernetes endpoint picker.

It follows the Gateway API Inference Extension (GIE) v1.0 endpoint picker: the Endpoint Picker
Protocol v1.0.0 (kubernetes-sigs/gateway-api-inference-extension,
docs/proposals/004-endpoint-picker-protocol) over Envoy's external-processing gRPC API
(``envoy.service.ext_proc.v3``), beside an ``inference.networking.k8s.io/v1`` InferencePool.
``endpoints`` reads and watches the pool (a file: GIE's "no Kubernetes" mode), ``picker``
decides with the gateway's own objects, ``server`` speaks the protocol.
"""
