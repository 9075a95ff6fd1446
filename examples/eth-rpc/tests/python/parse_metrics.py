"""Parse Prometheus text exposition (stdin) with prometheus_client's parser; print every
sample as one JSON list [name, labels, value] per line."""

import json
import sys

from prometheus_client.parser import text_string_to_metric_families

for family in text_string_to_metric_families(sys.stdin.read()):
    for sample in family.samples:
        print(json.dumps([sample.name, sample.labels, sample.value], sort_keys=True))
