"""Optional integrations of flashcore with other libraries. Each submodule imports its library
only when used; importing flashcore imports none of them."""
