# The two commands of the README. Each installs what is missing first.
.PHONY: demo test bootstrap

bootstrap:
	bash scripts/bootstrap.sh

demo: bootstrap
	.venv/bin/evident demo

# Two processes (pytest-xdist), a module's tests in one of them: the service tests wait on OpenSearch, Redis and
# the workers as much as they compute, and this machine kind has two cores.
test: bootstrap
	.venv/bin/python -m pytest -n 2 --dist loadfile
