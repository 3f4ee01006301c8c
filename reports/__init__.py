"""fcocheck: reports package."""
