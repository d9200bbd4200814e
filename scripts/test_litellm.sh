#!/usr/bin/env bash
# The LiteLLM guardrail against a real LiteLLM proxy (tests/litellm):
#   scripts/test_litellm.sh VENV
# VENV is a virtualenv with callfix installed (the wheel). This installs the
# pinned LiteLLM proxy and openai client into it, then runs tests/litellm, which
# starts a fake OpenAI-compatible upstream and LiteLLM proxies from
# examples/litellm/config.yaml on 127.0.0.1 and stops them.
# litellm[proxy] 1.108.7: later versions' proxy extra needs litellm-proxy
# builds that are not on the registry (docs/gateway.md).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:?usage: scripts/test_litellm.sh VENV}
"$venv/bin/python" -m pip install --quiet "litellm[proxy]==1.108.7" "openai==3.54.0" pytest
# The proxy must not fetch its cost map; no test reaches beyond 127.0.0.1.
export LITELLM_LOCAL_MODEL_COST_MAP=True
"$venv/bin/python" -c "import callfix.litellm, litellm; print('callfix', callfix.__version__, '/ litellm', litellm.__version__ if hasattr(litellm, '__version__') else '1.108.7')"
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests/litellm
