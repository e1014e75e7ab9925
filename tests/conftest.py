import os
import sys
from pathlib import Path

# tests/_nc.py is imported as a top-level helper module.
sys.path.insert(0, str(Path(__file__).parent))
os.environ.setdefault("ATTN_SCALE", "smoke")
os.environ.setdefault("ATTN_REGISTRY_DIR", str(Path(__file__).resolve().parents[1] / "_build" / "test-registry"))
