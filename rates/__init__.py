"""fcocheck: rates package."""
