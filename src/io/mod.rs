//! Reading and writing maps, scenarios and images.
