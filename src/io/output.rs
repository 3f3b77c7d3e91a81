//! Output files whose write errors are never lost.

use super::error::MapError;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A file being written through a buffer, whose last write error is reported by
/// [`OutputFile::finish`] instead of being dropped.
///
/// A `BufWriter` flushes its buffer when dropped and has nowhere to report a failure then, so
/// a small output (a PNG under 8 KiB, a short `.map`) written to a full disk looks saved. Every
/// file this crate writes goes through this type, and so should the caller's own outputs:
/// write, then call [`finish`](OutputFile::finish), which flushes, syncs regular files to disk
/// and names the file in any error. Dropping an `OutputFile` without finishing it is a
/// mistake: what the buffer still holds may be lost silently.
///
/// ```no_run
/// use std::io::Write;
/// let mut out = quadpath::io::OutputFile::create("paths.txt")?;
/// writeln!(out, "3,3 4,4").map_err(|e| out.error(e))?;
/// out.finish()?;
/// # Ok::<(), quadpath::io::MapError>(())
/// ```
#[derive(Debug)]
pub struct OutputFile {
    path: PathBuf,
    writer: BufWriter<File>,
}

impl OutputFile {
    /// Creates (or truncates) the file.
    ///
    /// # Errors
    /// [`MapError::Io`], naming the file, when it cannot be created.
    pub fn create(path: impl AsRef<Path>) -> Result<Self, MapError> {
        let path = path.as_ref();
        let file = File::create(path).map_err(|e| MapError::io(path, e))?;
        Ok(OutputFile {
            path: path.to_path_buf(),
            writer: BufWriter::new(file),
        })
    }

    /// The path the file was created under.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A write error on this file as a [`MapError::Io`] naming it.
    pub fn error(&self, source: std::io::Error) -> MapError {
        MapError::io(&self.path, source)
    }

    /// Flushes the buffer and, for a regular file, waits until the data is on disk.
    ///
    /// Devices and pipes (`/dev/stdout`, a FIFO) are flushed but not synced: they cannot be,
    /// and refusing to write to them would be worse.
    ///
    /// # Errors
    /// [`MapError::Io`], naming the file, when the flush or the sync fails (a full disk).
    pub fn finish(self) -> Result<(), MapError> {
        let path = self.path;
        let file = self
            .writer
            .into_inner()
            .map_err(|e| MapError::io(&path, e.into_error()))?;
        let regular = file
            .metadata()
            .map_err(|e| MapError::io(&path, e))?
            .is_file();
        if regular {
            file.sync_all().map_err(|e| MapError::io(&path, e))?;
        }
        Ok(())
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.writer.write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.flush()
    }
}

/// Some encoders (BMP, TGA) seek back to fill in a header.
impl Seek for OutputFile {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.writer.seek(pos)
    }
}
