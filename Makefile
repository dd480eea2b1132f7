# The two commands of the README. Each installs what is missing first.
.PHONY: demo test bootstrap

bootstrap:
	bash scripts/bootstrap.sh

demo: bootstrap
	.venv/bin/evident demo

test: bootstrap
	.venv/bin/python -m pytest
