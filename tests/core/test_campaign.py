"""The campaign (``check --all`` as one task per check function) on one process and on Dask
workers: same records with any number of workers, nothing half-written kept, resume after a
killed client, a killed worker's task run again and recorded once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from attention_theory import cluster
from attention_theory.experiment import main
from attention_theory.papers import PAPERS
from attention_theory.verify import campaign, registry, rerun

PAPER = "qin"  # the smallest paper: 20 check functions, about 15 s at smoke scale


def _records(folder: Path) -> dict[str, dict]:
    """Record files of a registry folder, without what differs between two runs of the same
    computation (the date, the commit, the durations)."""
    out = {}
    for f in sorted(folder.glob("*.json")):
        if f.name.startswith("_"):
            continue
        rec = json.loads(f.read_text())
        for k in ("date", "commit", "timing"):
            rec.pop(k, None)
        out[f.name] = rec
    return out


def _tasks() -> list[campaign.CheckTask]:
    return campaign.campaign_tasks([c for c in rerun.claim_checks() if c.startswith(PAPER + "-")])


@pytest.fixture(scope="module")
def sequential(tmp_path_factory):
    """The paper's campaign in this process (``--workers 1``): the reference."""
    folder = tmp_path_factory.mktemp("sequential")
    against = tmp_path_factory.mktemp("none")
    assert main(["check", "--all", "--paper", PAPER, "--registry", str(folder), "--against", str(against),
                 "--no-progress"]) == 0
    return folder


@pytest.fixture(scope="module")
def client():
    with cluster.open_client(cluster.ClusterSpec(workers=2), echo=lambda _: None) as c:
        yield c


def test_every_record_carries_its_durations_and_the_manifest_lists_it(sequential):
    manifest = campaign.read_manifest(sequential)["tasks"]
    tasks = _tasks()
    assert set(manifest) == {t.key for t in tasks}
    for f in sequential.glob(f"{PAPER}-*.json"):
        timing = json.loads(f.read_text())["timing"]
        assert timing["wall_s"] >= 0 and timing["cpu_s"] >= 0
        assert f.name in manifest[timing["task"]]["files"]


def test_two_workers_write_the_same_records_as_one(sequential, tmp_path, capsys):
    folder = tmp_path / "two"
    assert main(["check", "--all", "--paper", PAPER, "--registry", str(folder), "--against", str(tmp_path),
                 "--no-progress", "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert "workers: a local Dask cluster of 2 single-threaded worker processes" in out
    assert "slowest (wall s / CPU s)" in out
    two, one = _records(folder), _records(sequential)
    assert set(two) == set(one) and len(one) >= 20
    assert two == one


def test_a_killed_worker_is_replaced_and_every_record_written_once(client, sequential, tmp_path):
    tasks = _tasks()
    pids = list(client.run(os.getpid).values())
    killed = []

    def kill_once(_res):
        if not killed:
            os.kill(pids[0], signal.SIGKILL)  # a worker dies mid-campaign (its nanny starts another)
            killed.append(pids[0])

    seen = []
    results = campaign.run_campaign(tasks, scale="smoke", folder=tmp_path, client=client, progress=False,
                                    on_result=lambda r: (seen.append(r["task"]), kill_once(r)))
    assert killed
    assert sorted(seen) == sorted(t.key for t in tasks), "a task was lost or recorded twice"
    assert [r["status"] for r in results] == ["ran"] * len(tasks)
    assert _records(tmp_path) == _records(sequential)


def _small_curve(_):
    from attention_theory.trauger.single_layer import mc_curve

    return mc_curve(Ts=(2, 4, 8), m=8, n_draws=2, restarts=1, steps=5, kinds=("sphere", "signed-basis"))


def test_map_pieces_on_workers_equals_the_plain_loop(client):
    # inside a Dask task the (token kind, T) points of the curve are sub-tasks on both workers
    assert client.submit(_small_curve, None, pure=False).result() == _small_curve(None)
    assert client.submit(cluster.inside_dask_task, pure=False).result() is True
    assert cluster.inside_dask_task() is False
    pieces = client.submit(lambda _: cluster.map_pieces(abs, [-1, 2, -3]), None, pure=False).result()
    assert pieces == [1, 2, 3]


@pytest.mark.parametrize("stop_after", [0, 1, 7, 19])
def test_an_interrupted_campaign_resumes_to_the_uninterrupted_registry(sequential, tmp_path, stop_after):
    tasks = _tasks()
    count = []

    def interrupt(_res):
        count.append(1)
        if len(count) > stop_after:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        campaign.run_campaign(tasks, scale="smoke", folder=tmp_path, progress=False, on_result=interrupt)
    ran = []
    campaign.run_campaign(tasks, scale="smoke", folder=tmp_path, resume=True, progress=False,
                          on_result=lambda r: ran.append(r["task"]))
    assert len(ran) == len(tasks) - (stop_after + 1), "resume ran a complete task again, or skipped one"
    assert _records(tmp_path) == _records(sequential)


def test_resume_does_not_trust_a_leftover_or_altered_record(sequential, tmp_path):
    # the committed full-scale qin-assum-1 record was such a leftover: "sigma(0) = 0", 1 instance,
    # the first of the check's sub-statements, kept by a run that stopped before the last
    for f in sequential.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    target = tmp_path / "qin-assum-1__activation-regularity__smoke.json"
    rec = json.loads(target.read_text())
    target.write_text(json.dumps(dict(rec, description="sigma(0) = 0", n_instances=1)))
    other = tmp_path / "qin-thm-2__linear-rate__smoke.json"
    manifest = campaign.read_manifest(tmp_path)
    del manifest["tasks"][json.loads(other.read_text())["timing"]["task"]]
    (tmp_path / campaign.MANIFEST).write_text(json.dumps(manifest))  # finished record, no manifest entry
    tasks = campaign.campaign_tasks(["qin-assum-1", "qin-thm-2", "qin-step-1"])
    results = campaign.run_campaign(tasks, scale="smoke", folder=tmp_path, resume=True, progress=False)
    assert [r["status"] for r in results] == ["ran", "recorded", "ran"]
    assert _records(tmp_path) == _records(sequential)


def test_killing_the_client_and_resuming_loses_nothing(sequential, tmp_path):
    folder = tmp_path / "reg"
    argv = [sys.executable, "-m", "attention_theory", "check", "--all", "--paper", PAPER, "--registry",
            str(folder), "--against", str(tmp_path), "--no-progress"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(folder.glob("*.json"))) < 6 and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert len(campaign.completed_tasks(folder, "smoke")) < 20, "the campaign finished before the kill"
    done = subprocess.run(argv + ["--resume"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "recorded" in done.stdout
    assert _records(folder) == _records(sequential)
    assert not list(folder.glob(".tmp-*"))


def test_a_failing_check_keeps_its_failing_record_only(toy_check, tmp_path):
    from attention_theory import verify

    toy_check  # registrations below last for this test only

    @verify.claim_check("trauger-fig-3", "toy")
    def toy():
        verify.check_bound([1.0], [2.0], "first sub-statement (holds)", no_search="toy")
        return verify.check_bound([3.0], [2.0], "second sub-statement (fails)", no_search="toy")

    task = campaign.CheckTask((f"{toy.__module__}.{toy.__qualname__}",), (("trauger-fig-3", "toy"),))
    res = campaign.run_check_task(task, "smoke")
    assert res["status"] == "fails" and "second sub-statement" in res["message"]
    assert [r["status"] for r in res["records"]] == ["fails"]
    campaign.record_task_result(tmp_path, res, scale="smoke")
    (rec,) = registry.load_registry(tmp_path)
    assert rec["status"] == "fails" and "second sub-statement" in rec["description"]


def test_a_registry_of_another_scale_is_refused(sequential, tmp_path, capsys):
    for f in sequential.glob("qin-thm-2*.json"):
        (tmp_path / f.name.replace("__smoke", "__full")).write_text(
            json.dumps(dict(json.loads(f.read_text()), scale="full")))
    assert main(["check", "qin-thm-2", "--registry", str(tmp_path), "--against", str(tmp_path)]) == 2
    assert "holds full-scale records" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--workers", "0"], "positive integer or 'auto'"),
    (["--workers", "two"], "positive integer or 'auto'"),
    (["--jobs", "2"], "needs a batch-queue cluster"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "choose one of"),
    (["--cluster", "sge"], "invalid choice"),
])
def test_bad_worker_options_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["check", "qin-thm-2", *argv])
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_workers_auto_is_one_per_core():
    assert cluster.worker_count("auto") == len(os.sched_getaffinity(0))
    assert cluster.worker_count("3") == 3


def test_a_damaged_record_names_its_file(tmp_path):
    (tmp_path / "qin-thm-2__linear-rate__full.json").write_text('{"claim_id": ')
    with pytest.raises(ValueError, match="qin-thm-2__linear-rate__full.json"):
        registry.load_registry(tmp_path)


def test_checks_that_share_a_cached_result_are_one_task():
    (task,) = [t for t in campaign.campaign_tasks(["deora-thm-2"]) if t.shares]
    assert task.shares == "deora-certified-runs" and task.key == "shares:deora-certified-runs"
    assert ("deora-lemma-11", "certified") in task.pairs and ("deora-thm-2", "certified") in task.pairs
    assert len(task.functions) == 2
    # asked for Lemma 11 alone, the same task runs (Theorem 2's records come with it)
    assert task in campaign.campaign_tasks(["deora-lemma-11"])


def test_shares_must_be_a_label():
    from attention_theory import verify

    with pytest.raises(ValueError, match="shares"):
        verify.claim_check("trauger-fig-3", "toy", shares="Not A Label")


def test_figure_checks_are_left_to_their_chapters_at_full_scale():
    # without data they would train the figure's runs at the paper's size (hours): at full scale
    # their records come from the chapters, on the committed results
    (task,) = [t for t in campaign.campaign_tasks(["deora-fig-5"])
               if ("deora-fig-5", "momentum-faster-than-gd") in t.pairs]
    res = campaign.run_check_task(task, "full")
    assert res["status"] == "needs-data" and "committed results" in res["message"] and res["wall_s"] == 0.0
    assert campaign.trains_experiment(rerun.claim_checks()["deora-fig-5"][0][1])
    assert not campaign.trains_experiment(rerun.claim_checks()["qin-fig-1"][0][1])


def test_predicted_wall_time_is_a_longest_first_schedule():
    assert campaign.predict_wall([5.0, 3.0, 2.0], 2) == 5.0
    assert campaign.predict_wall([4.0, 4.0, 4.0], 2) == 8.0
    assert campaign.predict_wall([4.0, 1.0], 32) == 4.0
    # a task whose pieces run as sub-tasks: the pieces spread, its own part and longest piece do not
    assert campaign.predict_wall([(1.0, [3.0, 3.0, 3.0, 3.0])], 4) == 4.0
    assert campaign.predict_wall([(1.0, [3.0, 3.0, 3.0, 3.0])], 1) == 13.0
    assert campaign.predict_wall([(1.0, [3.0, 3.0, 3.0, 3.0]), 6.0], 2) == 10.0
    assert campaign.task_jobs({"cpu_s": 13.0, "pieces_cpu_s": [3.0, 3.0, 3.0, 3.0]}) == (1.0, [3.0] * 4)
    assert campaign.task_jobs({"cpu_s": 2.5}) == (2.5, [])
    with pytest.raises(ValueError, match="workers"):
        campaign.predict_wall([1.0], 0)


def test_plan_prints_the_manifest_durations(sequential, capsys):
    assert main(["check", "--plan", "--registry", str(sequential)]) == 0
    out = capsys.readouterr().out
    assert "predicted wall time" in out and "32 worker(s)" in out and "costliest tasks" in out
    n_all = int(out.split(" tasks,")[0])
    assert main(["check", "--plan", "--paper", PAPER, "--registry", str(sequential)]) == 0
    assert int(capsys.readouterr().out.split(" tasks,")[0]) == n_all  # the folder holds one paper
    other = next(p.key for p in PAPERS if p.key != PAPER)
    assert main(["check", "--plan", "--paper", other, "--registry", str(sequential)]) == 0
    assert f"no finished task of {other}" in capsys.readouterr().out


def test_a_batch_cluster_without_configuration_says_where_it_goes():
    # dask-jobqueue reads ~/.config/dask/jobqueue.yaml; with none, the command names that file
    import dask
    import dask_jobqueue  # noqa: F401 - loads its defaults into Dask's configuration

    with dask.config.set({"jobqueue.slurm.cores": None, "jobqueue.slurm.memory": None}):
        with pytest.raises(SystemExit, match="jobqueue.yaml"):
            with cluster.open_client(cluster.ClusterSpec(cluster="slurm", jobs=2), echo=lambda _: None):
                pass
