// Benchmarks: KDiskMark's presets, a before/after runner (what changes: the
// read policy, any tunable, a member's emulated disk), a fio job file
// editor, and the seed scenarios on the simulator. Runs show live on the
// dashboard; results are kept as fio JSON in the results folder.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import RaidScope

ScrollView {
    id: page
    property LiveSession session
    property alias controller: bench
    contentWidth: availableWidth
    clip: true
    // A scroll bar always shown when the page is longer than the window (as
    // Breeze does; Fusion's shows only while scrolling, so nothing said
    // there was more below), with the content narrowed to clear it.
    // Decided after the layout pass, not inside it: the bar narrows the
    // content, and a layout resized from within its own pass crashed
    // (Qt 6.4's GridLayout).
    property bool overflowing: false
    function updateOverflow() { overflowing = contentHeight > height }
    onContentHeightChanged: Qt.callLater(updateOverflow)
    onHeightChanged: Qt.callLater(updateOverflow)
    ScrollBar.vertical.policy: overflowing ? ScrollBar.AlwaysOn : ScrollBar.AlwaysOff
    readonly property real barRoom: ScrollBar.vertical.visible ? ScrollBar.vertical.width + 2 : 0
    SystemPalette { id: pal }

    BenchmarkController { id: bench; session: page.session }
    property alias bench: bench
    readonly property var currentPreset: bench.presets[presetBox.currentIndex] || null
    // "  (3 runs, ±2.1 %)" after a median.
    function spreadText(side) {
        const n = (side.runs || []).length
        return n > 1 ? qsTr(" (%1 runs, ±%2 %)").arg(n).arg((100 * (side.spread || 0)).toFixed(1)) : ""
    }
    // A write preset overwrites the array's data, and a running workload
    // stops for a benchmark: both only once the user said so.
    function confirmThen(run) {
        const writes = currentPreset && currentPreset.writes
        const busy = session && session.busy
        if (!writes && !busy) { run(false, false); return }
        runConfirm.run = run
        runConfirm.text = (writes ? qsTr("%1 writes over the array's data: what the array holds is lost. ").arg(currentPreset.label) : "")
                        + (busy ? qsTr("The running workload (%1) is stopped first.").arg(session.workloadName) : "")
        runConfirm.open()
    }
    Dialog {
        id: runConfirm
        objectName: "runConfirmDialog"
        property var run: null
        property string text
        title: qsTr("Run the benchmark?")
        modal: true
        parent: Overlay.overlay
        anchors.centerIn: parent
        width: 520
        standardButtons: Dialog.Ok | Dialog.Cancel
        Label { width: parent.width; wrapMode: Text.Wrap; text: runConfirm.text }
        onAccepted: if (run) run(true, true)
    }

    // What the before/after may change: every settable value, by address.
    readonly property var changeTargets: session && session.tunables.count > 0 ? session.tunables.addresses() : []
    readonly property var currentTarget: changeTargets[changeBox.currentIndex] || null

    ColumnLayout {
        width: page.availableWidth - page.barRoom
        spacing: Theme.spacing

        Card {
            Layout.fillWidth: true
            title: qsTr("Before / after")
            subtitle: qsTr("the same preset twice, with one setting changed")
            ColumnLayout {
                anchors { left: parent.left; right: parent.right; top: parent.top }
                spacing: 8
                // What to run, in label-and-control groups that wrap to a
                // second line in a narrow window (a half-screen one clipped
                // the seconds box off the card's edge).
                Flow {
                    Layout.fillWidth: true
                    spacing: 8
                    Row {
                        spacing: 8
                        Label { text: qsTr("Preset"); height: presetBox.height; verticalAlignment: Text.AlignVCenter }
                        ComboBox {
                            id: presetBox
                            objectName: "presetBox"
                            model: bench.presets.map(p => p.label)
                            implicitContentWidthPolicy: ComboBox.WidestText
                            ToolTip.visible: hovered; ToolTip.delay: 600
                            ToolTip.text: page.currentPreset ? page.currentPreset.description : ""
                        }
                    }
                    Row {
                        spacing: 8
                        Label { text: qsTr("Change"); height: changeBox.height; verticalAlignment: Text.AlignVCenter }
                        ComboBox {
                            id: changeBox
                            objectName: "changeBox"
                            model: page.changeTargets.map(t => t.address)
                            implicitContentWidthPolicy: ComboBox.WidestText
                            ToolTip.visible: hovered; ToolTip.text: qsTr("The setting that differs between the two runs"); ToolTip.delay: 600
                        }
                    }
                    Row {
                        spacing: 8
                        Label { text: qsTr("from"); height: changeBox.height; verticalAlignment: Text.AlignVCenter }
                        ComboBox {
                            id: beforeBox
                            objectName: "beforeBox"
                            visible: page.currentTarget && page.currentTarget.type === "choice"
                            model: page.currentTarget ? page.currentTarget.choices : []
                            implicitContentWidthPolicy: ComboBox.WidestText
                        }
                        Field {
                            id: beforeField
                            objectName: "beforeField"
                            visible: !beforeBox.visible
                            placeholderText: qsTr("value")
                            width: 110
                            height: changeBox.height
                        }
                        Label { text: qsTr("to"); height: changeBox.height; verticalAlignment: Text.AlignVCenter }
                        ComboBox {
                            id: afterBox
                            objectName: "afterBox"
                            visible: beforeBox.visible
                            model: beforeBox.model
                            // "to" starts on the second value (md-rr after
                            // md-legacy): set once the box has taken its new
                            // model (it goes back to the first on a new one).
                            onModelChanged: Qt.callLater(() => { if (count > 1) currentIndex = 1 })
                            implicitContentWidthPolicy: ComboBox.WidestText
                        }
                        Field {
                            id: afterField
                            objectName: "afterField"
                            visible: !afterBox.visible
                            placeholderText: qsTr("value")
                            width: 110
                            height: changeBox.height
                        }
                    }
                    Row {
                        spacing: 8
                        Label { text: qsTr("for"); height: secondsBox.height; verticalAlignment: Text.AlignVCenter }
                        Spin {
                            id: secondsBox
                            objectName: "secondsBox"
                            from: 1; to: 600; value: 5; editable: true
                            ToolTip.visible: hovered; ToolTip.text: qsTr("Seconds per run"); ToolTip.delay: 600
                        }
                        Label { text: qsTr("s"); height: secondsBox.height; verticalAlignment: Text.AlignVCenter }
                    }
                    Row {
                        spacing: 8
                        Label { text: qsTr("repeats"); height: repeatsBox.height; verticalAlignment: Text.AlignVCenter }
                        Spin {
                            id: repeatsBox
                            objectName: "repeatsBox"
                            from: 1; to: 20; value: 3; editable: true
                            ToolTip.visible: hovered; ToolTip.delay: 600
                            ToolTip.text: qsTr("Runs per side, interleaved (A B A B …): the result is their median, and their spread tells a difference from the noise")
                        }
                    }
                }
                RowLayout {
                    spacing: 8
                    Button {
                        objectName: "runBeforeAfterButton"
                        text: qsTr("Run before/after")
                        highlighted: true
                        enabled: !bench.running && page.currentTarget !== null
                        onClicked: {
                            const key = page.currentPreset.key, target = page.currentTarget.address
                            const a = beforeBox.visible ? beforeBox.currentText : beforeField.text
                            const b = afterBox.visible ? afterBox.currentText : afterField.text
                            page.confirmThen((w, s) => bench.runBeforeAfter(key, target, a, b, secondsBox.value, repeatsBox.value, w, s))
                        }
                        ToolTip.visible: hovered; ToolTip.text: qsTr("Runs the preset with each value, repeated and interleaved"); ToolTip.delay: 600
                    }
                    Button {
                        objectName: "runPresetButton"
                        text: qsTr("Run preset")
                        enabled: !bench.running && page.currentPreset !== null
                        onClicked: {
                            const key = page.currentPreset.key
                            page.confirmThen((w, s) => bench.runPreset(key, secondsBox.value, repeatsBox.value, w, s))
                        }
                    }
                    Button {
                        objectName: "cancelBenchButton"
                        text: qsTr("Cancel")
                        enabled: bench.running
                        onClicked: bench.cancel()
                    }
                    ProgressBar {
                        objectName: "benchProgress"
                        Layout.fillWidth: true
                        visible: bench.running
                        value: Math.max(0, bench.progress)
                        indeterminate: bench.progress < 0
                    }
                    Label {
                        objectName: "benchPhase"
                        text: bench.phaseText
                        elide: Text.ElideRight
                        Layout.fillWidth: !bench.running
                    }
                }
                // The user's own presets: a name and the job; saved in the
                // settings, listed after KDiskMark's.
                Flow {
                    objectName: "presetEditor"
                    Layout.fillWidth: true
                    spacing: 8
                    Label { text: qsTr("Your preset"); height: presetName.height; verticalAlignment: Text.AlignVCenter; font.bold: true }
                    Field { id: presetName; objectName: "presetNameField"; placeholderText: qsTr("name"); width: 150 }
                    ComboBox { id: presetRw; objectName: "presetRwBox"; model: ["read", "write", "randread", "randwrite", "rw", "randrw"] }
                    // Each label with its control: the Flow wraps between them, never inside.
                    Row {
                        spacing: 8
                        Label { text: qsTr("bs"); height: presetName.height; verticalAlignment: Text.AlignVCenter }
                        Field { id: presetBs; objectName: "presetBsField"; text: "128K"; width: 70 }
                    }
                    Row {
                        spacing: 8
                        Label { text: qsTr("depth"); height: presetName.height; verticalAlignment: Text.AlignVCenter }
                        Spin { id: presetDepth; objectName: "presetDepthBox"; from: 1; to: 1024; value: 16; editable: true; width: 110 }
                    }
                    Row {
                        spacing: 8
                        Label { text: qsTr("jobs"); height: presetName.height; verticalAlignment: Text.AlignVCenter }
                        Spin { id: presetJobs; objectName: "presetJobsBox"; from: 1; to: 64; value: 1; editable: true; width: 100 }
                    }
                    Button {
                        objectName: "savePresetButton"
                        text: qsTr("Save preset")
                        enabled: presetName.text.trim().length > 0
                        onClicked: {
                            const why = bench.savePreset({ label: presetName.text, rw: presetRw.currentText, bs: presetBs.text,
                                                           iodepth: presetDepth.value, numjobs: presetJobs.value,
                                                           engine: "io_uring", direct: true, rwmixread: 70 })
                            presetMessage.text = why
                            if (!why.length) presetBox.currentIndex = bench.presets.findIndex(p => p.label === presetName.text.trim())
                        }
                    }
                    Button {
                        objectName: "deletePresetButton"
                        text: qsTr("Delete %1").arg(page.currentPreset ? page.currentPreset.label : "")
                        visible: page.currentPreset !== null && !page.currentPreset.builtin
                        onClicked: bench.deletePreset(page.currentPreset.key)
                    }
                    Label { id: presetMessage; objectName: "presetMessage"; color: Theme.negative; visible: text.length > 0; height: presetName.height; verticalAlignment: Text.AlignVCenter }
                }
                Label {
                    objectName: "benchError"
                    visible: bench.errorString.length > 0
                    text: bench.errorString
                    color: Theme.negative
                    wrapMode: Text.Wrap
                    Layout.fillWidth: true
                }
            }
        }

        Card {
            id: cmp
            objectName: "comparisonCard"
            Layout.fillWidth: true
            visible: bench.comparison.ratio !== undefined
            readonly property var a: bench.comparison.before || ({})
            readonly property var b: bench.comparison.after || ({})
            title: qsTr("Result: %1").arg(bench.comparison.change || "")
            implicitHeight: cmpCol.implicitHeight + 50
            headerExtras: Label {
                objectName: "ratioLabel"
                visible: !bench.comparison.single
                text: qsTr("after / before: %1×").arg((bench.comparison.ratio || 0).toFixed(2))
                font.bold: true
                font.pixelSize: 16
                // Within the noise: no colour, it is no verdict.
                color: bench.comparison.withinNoise ? pal.windowText
                       : (bench.comparison.ratio || 0) >= 1 ? Theme.positive : Theme.negative
            }
            ColumnLayout {
                id: cmpCol
                anchors { left: parent.left; right: parent.right; top: parent.top }
                spacing: 10
                Label {
                    objectName: "verdictLabel"
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    text: bench.comparison.single
                          ? qsTr("%1: median of %2 run(s) %3, spread ±%4 %").arg(cmp.a.label || "").arg((cmp.a.runs || []).length)
                                .arg(Theme.bandwidth(cmp.a.bandwidth)).arg((100 * (cmp.a.spread || 0)).toFixed(1))
                          : (bench.comparison.verdict || "")
                }
                Label {
                    objectName: "p99Warning"
                    visible: bench.comparison.p99Worse === true && !bench.comparison.single
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    font.bold: true
                    color: Theme.negative
                    text: qsTr("The 99th percentile latency got worse: %1 → %2 (×%3)").arg(Theme.ms(cmp.a.p99Ms))
                          .arg(Theme.ms(cmp.b.p99Ms)).arg((bench.comparison.p99Ratio || 0).toFixed(2))
                }
                ResultBars {
                    Layout.fillWidth: true
                    label: qsTr("Bandwidth")
                    beforeName: cmp.a.label || ""; afterName: cmp.b.label || ""
                    before: cmp.a.bandwidth || 0; after: cmp.b.bandwidth || 0
                    beforeText: Theme.bandwidth(cmp.a.bandwidth) + page.spreadText(cmp.a)
                    afterText: Theme.bandwidth(cmp.b.bandwidth) + page.spreadText(cmp.b)
                }
                ResultBars {
                    Layout.fillWidth: true
                    label: qsTr("IOPS")
                    beforeName: cmp.a.label || ""; afterName: cmp.b.label || ""
                    before: cmp.a.iops || 0; after: cmp.b.iops || 0
                    beforeText: Theme.count(cmp.a.iops); afterText: Theme.count(cmp.b.iops)
                }
                GridLayout {
                    columns: 5
                    columnSpacing: 18
                    Label { text: "" }
                    Label { text: qsTr("read shares"); opacity: 0.7 }
                    Label { text: "p50"; opacity: 0.7 }
                    Label { text: "p90"; opacity: 0.7 }
                    Label { text: "p99"; opacity: 0.7 }
                    Label { text: cmp.a.label || "" }
                    ShareBar { Layout.preferredWidth: 260; shares: cmp.a.shares || [] }
                    Label { text: Theme.ms(cmp.a.p50Ms) }
                    Label { text: Theme.ms(cmp.a.p90Ms) }
                    Label { text: Theme.ms(cmp.a.p99Ms) }
                    Label { text: cmp.b.label || "" }
                    ShareBar { Layout.preferredWidth: 260; shares: cmp.b.shares || [] }
                    Label { text: Theme.ms(cmp.b.p50Ms) }
                    Label { text: Theme.ms(cmp.b.p90Ms) }
                    Label {
                        objectName: "p99After"
                        text: Theme.ms(cmp.b.p99Ms)
                        color: bench.comparison.p99Worse ? Theme.negative : pal.windowText
                        font.bold: bench.comparison.p99Worse === true
                    }
                }
                // Export: the two runs as one report (HTML, PDF, JSON or CSV by
                // the name's suffix), written by the report code the CLI's
                // `report` command uses.
                RowLayout {
                    Layout.fillWidth: true
                    spacing: 8
                    Label { text: qsTr("Report") }
                    Field {
                        id: exportPath
                        objectName: "exportPathField"
                        Layout.fillWidth: true
                        selectByMouse: true
                        text: bench.suggestedReport
                        placeholderText: qsTr("file to write: .html, .pdf, .json or .csv")
                        onAccepted: exportButton.clicked()
                        ToolTip.visible: hovered; ToolTip.text: qsTr("Where the report goes; its suffix picks the format"); ToolTip.delay: 600
                    }
                    Button {
                        objectName: "exportBrowseButton"
                        text: qsTr("Choose…")
                        icon.name: "document-save-as"
                        onClicked: {
                            const chosen = bench.chooseExportFile(exportPath.text)
                            if (chosen.length > 0) {
                                exportPath.text = chosen
                                bench.exportReport(chosen)
                            }
                        }
                        ToolTip.visible: hovered; ToolTip.text: qsTr("Pick the file in a dialog"); ToolTip.delay: 600
                    }
                    Button {
                        id: exportButton
                        objectName: "exportButton"
                        text: qsTr("Export")
                        icon.name: "document-export"
                        enabled: bench.canExport && !bench.running
                        onClicked: bench.exportReport(exportPath.text)
                        ToolTip.visible: hovered; ToolTip.text: qsTr("Write both runs and their ratios as a report"); ToolTip.delay: 600
                    }
                }
                Label {
                    objectName: "exportMessage"
                    visible: bench.exportMessage.length > 0
                    text: bench.exportMessage
                    color: bench.exportOk ? Theme.positive : Theme.negative
                    wrapMode: Text.Wrap
                    Layout.fillWidth: true
                }
            }
        }

        Card {
            Layout.fillWidth: true
            title: qsTr("fio job file")
            subtitle: qsTr("runs on the array; filename= is ignored")
            implicitHeight: 260
            ColumnLayout {
                anchors.fill: parent
                spacing: 6
                ScrollView {
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    TextArea {
                        id: jobText
                        objectName: "jobFileEditor"
                        font.family: "monospace"
                        text: "[global]\nioengine=io_uring\nrw=randread\nbs=4k\niodepth=16\ndirect=1\ntime_based\nruntime=5\n\n[random-read]\n"
                        onTextChanged: jobCheck.result = bench.checkJobFile(text)
                        background: Rectangle { color: pal.base; border.color: pal.mid; radius: 3 }
                    }
                }
                RowLayout {
                    Label {
                        id: jobCheck
                        objectName: "jobFileStatus"
                        property var result: bench.checkJobFile(jobText.text)
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        text: result.ok ? qsTr("%n job(s), no errors", "", result.jobs)
                                        : (result.line > 0 ? qsTr("Line %1: ").arg(result.line) : "") + result.message
                        color: result.ok ? pal.windowText : Theme.negative
                    }
                    Button {
                        objectName: "runJobFileButton"
                        text: qsTr("Run job file")
                        enabled: jobCheck.result.ok && !bench.running
                        onClicked: bench.runJobFile(jobText.text, 5)
                    }
                }
            }
        }

        Card {
            Layout.fillWidth: true
            title: qsTr("Published benchmarks")
            subtitle: qsTr("before/after figures published with kernel changes, replayed on the simulator (no disk I/O)")
            implicitHeight: scCol.implicitHeight + 50
            ColumnLayout {
                id: scCol
                anchors { left: parent.left; right: parent.right; top: parent.top }
                RowLayout {
                    ComboBox {
                        id: scenarioBox
                        objectName: "scenarioBox"
                        model: bench.scenarios.map(s => s.name)
                        implicitContentWidthPolicy: ComboBox.WidestText
                        ToolTip.visible: hovered && bench.scenarios.length > 0
                        ToolTip.text: bench.scenarios[currentIndex] ? bench.scenarios[currentIndex].description : ""
                        ToolTip.delay: 600
                    }
                    Button {
                        objectName: "runScenarioButton"
                        text: qsTr("Simulate")
                        enabled: !bench.running && scenarioBox.count > 0
                        onClicked: bench.runScenario(scenarioBox.currentText)
                    }
                }
                Repeater {
                    model: bench.scenarioRows.length
                    RowLayout {
                        readonly property var modelData: bench.scenarioRows[index]
                        spacing: 12
                        Label { text: modelData.label; Layout.preferredWidth: 260; elide: Text.ElideRight }
                        Label { text: modelData.before + " " + Theme.bandwidth(modelData.bwBefore) }
                        Label { text: "→ " + modelData.after + " " + Theme.bandwidth(modelData.bwAfter) }
                        Label { text: modelData.ratio.toFixed(2) + "×"; font.bold: true }
                        Label { text: modelData.within ? qsTr("matches the published figures") : qsTr("differs from the published figures")
                                color: modelData.within ? Theme.positive : Theme.neutral }
                    }
                }
            }
        }

        Card {
            Layout.fillWidth: true
            title: qsTr("This session's runs")
            subtitle: qsTr("every run is kept in %1; all of them are on the History page").arg(bench.resultsDir)
            implicitHeight: resCol.implicitHeight + 50
            ColumnLayout {
                id: resCol
                anchors { left: parent.left; right: parent.right; top: parent.top }
                Label {
                    objectName: "resultsEmpty"
                    visible: bench.results.length === 0
                    text: bench.running ? qsTr("The result appears here when the run ends.") : qsTr("No run in this session yet: earlier runs are on the History page.")
                    opacity: 0.6
                }
                Repeater {
                    model: bench.results.length
                    RowLayout {
                        readonly property var modelData: bench.results[index]
                        spacing: 14
                        Label { text: modelData.when; opacity: 0.7 }
                        Label { text: modelData.title; Layout.fillWidth: true; elide: Text.ElideRight }
                        // Figures in columns of their own width, right-aligned, so
                        // rows line up whatever their digits.
                        Label { text: Theme.bandwidth(modelData.bandwidth); horizontalAlignment: Text.AlignRight; Layout.preferredWidth: 90 }
                        Label { text: Theme.count(modelData.iops) + " IOPS"; horizontalAlignment: Text.AlignRight; Layout.preferredWidth: 90 }
                        Label { text: "p99 " + Theme.ms(modelData.p99Ms); horizontalAlignment: Text.AlignRight; Layout.preferredWidth: 100 }
                    }
                }
            }
        }
    }
}
