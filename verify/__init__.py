"""fcocheck: verify package."""
