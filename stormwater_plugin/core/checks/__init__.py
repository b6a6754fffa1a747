"""Check kinds. Each module implements one ``kind`` of rule; packs supply the numbers."""
