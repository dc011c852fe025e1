"""Village configuration: YAML files loaded into frozen, validated pydantic models."""
