"""Local sessions write files through streamplan's NioLocalFileSystem (issue 9): Hadoop's
local file system without a `chmod` process per file created, giving files the same modes."""
from __future__ import annotations

import os
import stat

from streamplan.runtime.session import LOCAL_FILE_SYSTEM


def hadoop(spark):
    jvm = spark.sparkContext._jvm
    return jvm, spark.sparkContext._jsc.hadoopConfiguration()


def file_system(spark):
    """What Spark's checkpoints get for a file: path."""
    jvm, conf = hadoop(spark)
    return jvm.org.apache.hadoop.fs.FileSystem.get(jvm.java.net.URI("file:///"), conf)


def hadoops_local_file_system(spark):
    jvm, conf = hadoop(spark)
    fs = jvm.org.apache.hadoop.fs.LocalFileSystem()
    fs.initialize(jvm.java.net.URI("file:///"), conf)
    return fs


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_file_paths_of_a_local_session_use_streamplans_file_system(spark):
    assert file_system(spark).getClass().getName() == LOCAL_FILE_SYSTEM


def test_files_get_the_modes_hadoops_own_local_file_system_gives(spark, tmp_path):
    jvm, _ = hadoop(spark)
    ours, theirs = file_system(spark), hadoops_local_file_system(spark)
    for name, fs in (("ours", ours), ("theirs", theirs)):
        out = fs.create(jvm.org.apache.hadoop.fs.Path(str(tmp_path / name / "offsets" / "0")))
        out.write(b"v1")
        out.close()
    for made in ("offsets", "offsets/0", "offsets/.0.crc"):      # checksum files included
        assert mode(tmp_path / "ours" / made) == mode(tmp_path / "theirs" / made), made


def test_set_permission_sets_exactly_the_bits_asked_for(spark, tmp_path):
    jvm, _ = hadoop(spark)
    fs = file_system(spark)
    target, directory = tmp_path / "file", tmp_path / "dir"
    target.write_text("x")
    directory.mkdir()
    for path, bits in ((target, "640"), (target, "604"), (directory, "1750")):   # 1: sticky
        fs.setPermission(jvm.org.apache.hadoop.fs.Path(str(path)),
                         jvm.org.apache.hadoop.fs.permission.FsPermission(bits))
        assert mode(path) == int(bits, 8), bits
