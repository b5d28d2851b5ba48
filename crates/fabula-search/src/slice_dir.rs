//! A read-only tantivy `Directory` whose files are byte slices held in memory or, for a persisted
//! index, slices of the one memory-mapped bundle file.
//!
//! No library type fits: tantivy's `MmapDirectory` maps one file per segment component (about
//! nine files per world, 180,000 files at 20,000 worlds) and cannot replace a world's index in
//! one atomic step, and its `RamDirectory` copies every file onto the heap. Tantivy reads
//! through `FileHandle`s, which `OwnedBytes` implements without copying, so serving slices of
//! one mapping is enough. Every write is refused: these indexes are built once, elsewhere.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tantivy::Directory;
use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    DirectoryLock, FileHandle, Lock, OwnedBytes, WatchCallback, WatchHandle, WritePtr,
};

/// The files of one tantivy index, by name.
#[derive(Clone)]
pub(crate) struct SliceDirectory {
    files: Arc<BTreeMap<PathBuf, OwnedBytes>>,
}

impl SliceDirectory {
    pub(crate) fn new(files: impl IntoIterator<Item = (PathBuf, OwnedBytes)>) -> SliceDirectory {
        SliceDirectory {
            files: Arc::new(files.into_iter().collect()),
        }
    }

    fn file(&self, path: &Path) -> Result<&OwnedBytes, OpenReadError> {
        self.files
            .get(path)
            .ok_or_else(|| OpenReadError::FileDoesNotExist(path.to_owned()))
    }
}

impl std::fmt::Debug for SliceDirectory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SliceDirectory")
            .field("files", &self.files.keys().collect::<Vec<_>>())
            .finish()
    }
}

fn read_only() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::PermissionDenied,
        "a persisted world index is read-only",
    )
}

impl Directory for SliceDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        Ok(Arc::new(self.file(path)?.clone()))
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        Err(DeleteError::IoError {
            io_error: Arc::new(read_only()),
            filepath: path.to_owned(),
        })
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        Ok(self.files.contains_key(path))
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        Err(OpenWriteError::wrap_io_error(read_only(), path.to_owned()))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        Ok(self.file(path)?.as_slice().to_vec())
    }

    fn atomic_write(&self, _path: &Path, _data: &[u8]) -> std::io::Result<()> {
        Err(read_only())
    }

    fn sync_directory(&self) -> std::io::Result<()> {
        Ok(())
    }

    /// Readers take tantivy's meta lock while they load segments; nothing here ever changes, so
    /// every lock is granted and holds nothing.
    fn acquire_lock(&self, _lock: &Lock) -> Result<DirectoryLock, LockError> {
        Ok(DirectoryLock::from(Box::new(())))
    }

    /// Nothing ever changes, so nothing is ever reported.
    fn watch(&self, _callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        Ok(WatchHandle::empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serves_files_and_refuses_writes() {
        let directory =
            SliceDirectory::new([(PathBuf::from("meta.json"), OwnedBytes::new(b"{}".to_vec()))]);
        let meta = Path::new("meta.json");
        let other = Path::new("other");
        assert!(directory.exists(meta).unwrap());
        assert!(!directory.exists(other).unwrap());
        assert_eq!(directory.atomic_read(meta).unwrap(), b"{}");
        let handle = directory.get_file_handle(meta).unwrap();
        assert_eq!(handle.read_bytes(1..2).unwrap().as_slice(), b"}");
        assert!(matches!(
            directory.open_read(other),
            Err(OpenReadError::FileDoesNotExist(_))
        ));
        assert!(directory.open_write(other).is_err());
        assert!(directory.atomic_write(meta, b"x").is_err());
        assert!(directory.delete(meta).is_err());
        assert_eq!(directory.atomic_read(meta).unwrap(), b"{}");
    }
}
