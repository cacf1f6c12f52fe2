//! Code objects: loading is being built; see the module documentation once it lands.
