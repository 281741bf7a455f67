# Included by a layer Makefile (after it sets HERE to its own folder): the recipe that installs that
# folder's requirements.txt into "$(ARTIFACTS_DIR)/python" for the Lambda platform (arm64, Python 3.13).
# The shared dependencies resolve to the deps layer's pins (-c): the gateway stacks its layers under
# /opt/python, and two versions of pydantic there would mix files.
PYTHON ?= python3.13
PLATFORM ?= manylinux2014_aarch64

define pinned_layer
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --no-compile \
		--target "$(ARTIFACTS_DIR)/python" \
		--platform $(PLATFORM) --implementation cp --python-version 3.13 --only-binary=:all: \
		-r "$(HERE)requirements.txt" -c "$(HERE)../deps/requirements.txt"
	rm -rf "$(ARTIFACTS_DIR)/python/bin"  # console scripts: nothing runs them in Lambda
endef
