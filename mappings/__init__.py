"""OpenSearch definitions as JSON: the evidence index template, search pipelines, Dashboards objects."""
from pathlib import Path

MAPPINGS_DIR = Path(__file__).resolve().parent
