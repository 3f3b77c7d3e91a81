//! What can go wrong when registering a movement class or asking a world for a path.

use super::ClassId;
use crate::flow::FlowError;
use crate::geom::Cell;
use crate::grid::Movement;
use crate::hpa::{BuildError, EditError, Endpoint, QueryError};

/// Why a [`World`](super::World) refused a class or a query.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum WorldError {
    /// The class id does not belong to this world.
    #[error("{class} is not a class of this world ({count} registered)")]
    UnknownClass {
        /// The id given.
        class: ClassId,
        /// How many classes the world has.
        count: usize,
    },
    /// A class whose passable set is empty: it could stand nowhere.
    #[error("movement class {movement} has no passable terrain: give it at least one code")]
    NoPassableTerrain {
        /// The class asked for.
        movement: Movement,
    },
    /// A class whose agents are larger than the map.
    #[error("movement class {movement} does not fit on the {width}x{height} map")]
    LargerThanMap {
        /// The class asked for.
        movement: Movement,
        /// Map width.
        width: u32,
        /// Map height.
        height: u32,
    },
    /// The class's layer could not be built.
    #[error("cannot build the layer of movement class {movement}: {error}")]
    Build {
        /// The class asked for.
        movement: Movement,
        /// Why.
        error: BuildError,
    },
    /// The start or the goal is on the map but the class's agent cannot stand there.
    #[error(
        "{endpoint} {cell} is not open for {class} ({movement}): the agent's footprint from \
         there is not all passable"
    )]
    NotOpen {
        /// The class.
        class: ClassId,
        /// Its movement.
        movement: Movement,
        /// Which end.
        endpoint: Endpoint,
        /// The cell (the footprint's top-left cell).
        cell: Cell,
    },
    /// An edit reached off the map; nothing changed.
    #[error("edit refused: {0}")]
    Edit(#[from] EditError),
    /// A query failed for another reason: an end off the map, or no path.
    #[error("{class} ({movement}): {error}")]
    Query {
        /// The class.
        class: ClassId,
        /// Its movement.
        movement: Movement,
        /// Why.
        error: QueryError,
    },
    /// A flow field could not be built for the class.
    #[error("flow field for {class} ({movement}): {error}")]
    Flow {
        /// The class.
        class: ClassId,
        /// Its movement.
        movement: Movement,
        /// Why.
        error: FlowError,
    },
}

impl WorldError {
    /// The query error of `class` on its layer, naming the class.
    pub(super) fn of_query(class: ClassId, movement: &Movement, error: QueryError) -> Self {
        let movement = movement.clone();
        match error {
            QueryError::Blocked { endpoint, cell } => WorldError::NotOpen {
                class,
                movement,
                endpoint,
                cell,
            },
            error => WorldError::Query {
                class,
                movement,
                error,
            },
        }
    }

    /// Whether this is a query whose ends are both open but not connected: the one answer
    /// that is not a fault of the input.
    pub fn is_unreachable(&self) -> bool {
        matches!(
            self,
            WorldError::Query {
                error: QueryError::Unreachable { .. },
                ..
            }
        )
    }
}
