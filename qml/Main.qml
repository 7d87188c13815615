// The main window: a toolbar with the array and the workload (Start/Stop),
// a sidebar of pages (as System Settings and System Monitor do), the page,
// and a status line for messages.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import RaidScope

ApplicationWindow {
    id: win
    property string startPage: "dashboard"
    property bool startDemo: true
    property var startMembers: []
    property string startWorkload      // with startMembers: run it once the array is open
    property alias refreshHz: session.refreshHz
    property alias profileScale: session.profileScale
    readonly property var pageKeys: ["dashboard", "tune", "arrays", "benchmark", "history"]
    readonly property var pageTitles: [qsTr("Dashboard"), qsTr("Tune"), qsTr("Arrays"), qsTr("Benchmark"), qsTr("History")]
    property alias session: session
    property alias currentPage: sidebar.currentIndex

    width: 1280
    height: 860
    minimumWidth: 900
    minimumHeight: 600
    visible: true
    // The array only: the window system adds the application's name
    // ("… — RaidScope"), so it is not written here a second time.
    title: session.members.length ? session.arrayText : ""

    SystemPalette { id: pal; colorGroup: SystemPalette.Active }
    SystemPalette { id: disabledPal; colorGroup: SystemPalette.Disabled }
    // The controls follow the application's palette (the desktop's, or
    // --color-scheme's) in every role they draw with.
    palette.window: pal.window
    // The text roles group by group: a binding of the whole role
    // (palette.buttonText) sets the disabled group too, each time it is
    // evaluated, and disabled controls then read as enabled.
    palette.active.windowText: pal.windowText
    palette.inactive.windowText: pal.windowText
    palette.base: pal.base
    palette.alternateBase: pal.alternateBase
    palette.active.text: pal.text
    palette.inactive.text: pal.text
    palette.button: pal.button
    palette.active.buttonText: pal.buttonText
    palette.inactive.buttonText: pal.buttonText
    palette.highlight: pal.highlight
    palette.highlightedText: pal.highlightedText
    palette.light: pal.light
    palette.midlight: pal.midlight
    palette.mid: pal.mid
    palette.dark: pal.dark
    palette.shadow: pal.shadow
    palette.placeholderText: pal.placeholderText
    palette.toolTipBase: pal.toolTipBase
    palette.toolTipText: pal.toolTipText
    palette.disabled.text: disabledPal.text
    palette.disabled.windowText: disabledPal.windowText
    palette.disabled.buttonText: disabledPal.buttonText

    function showPage(key) {
        const i = pageKeys.indexOf(key)
        if (i >= 0) sidebar.currentIndex = i
    }
    // Called before the window closes (and by --screenshot): stop cleanly.
    function shutdown() { session.stop() }
    onClosing: shutdown()

    LiveSession { id: session }
    Connections {
        target: session
        enabled: win.startWorkload.length > 0
        function onStatusChanged() {
            if (session.status === LiveSession.Idle && session.tunables.count > 0) {
                const w = win.startWorkload
                win.startWorkload = ""
                session.start(w)
            }
        }
    }

    Component.onCompleted: {
        showPage(startPage)
        if (startMembers.length > 0) session.openArray(startMembers)
        else if (startDemo) session.openDemo()
    }

    header: ToolBar {
        RowLayout {
            anchors.fill: parent
            anchors.leftMargin: 12
            anchors.rightMargin: 8
            spacing: 10
            Label {
                text: "RaidScope"
                font.bold: true
                font.pixelSize: 16
            }
            Label {
                objectName: "arrayText"
                text: session.arrayText
                elide: Text.ElideRight
                opacity: 0.8
                Layout.fillWidth: true
            }
            Rectangle {
                id: runDot
                width: 10; height: 10; radius: 5
                color: session.running ? Theme.positive : session.status === LiveSession.Error ? Theme.negative
                                                                                                 : session.busy ? Theme.neutral : pal.mid
                // No pulsing: an animation would redraw the window at the
                // display's rate the whole time a workload runs.
            }
            Label {
                objectName: "runStatus"
                text: session.busy ? session.statusText + (session.running ? ": " + session.workloadName : "")
                                   : session.statusText || (session.members.length ? "" : qsTr("No array open"))
                elide: Text.ElideRight
                Layout.maximumWidth: 480
            }
            ComboBox {
                id: workloadBox
                objectName: "workloadBox"
                visible: !session.busy
                model: session.workloads.map(k => session.workloadLabel(k))
                implicitContentWidthPolicy: ComboBox.WidestText
                ToolTip.visible: hovered
                ToolTip.text: qsTr("The workload Start runs on the array (until Stop)")
                ToolTip.delay: 600
            }
            Button {
                id: startStop
                objectName: "startStopButton"
                text: session.busy ? qsTr("Stop") : qsTr("Start")
                icon.name: session.busy ? "media-playback-stop" : "media-playback-start"
                enabled: session.status !== LiveSession.Stopping && session.members.length > 0
                highlighted: !session.busy
                onClicked: session.busy ? session.stop() : session.start(session.workloads[workloadBox.currentIndex])
                ToolTip.visible: hovered
                ToolTip.text: session.busy ? qsTr("Stop the workload cleanly (Ctrl+.)") : qsTr("Run the chosen workload on the array (Ctrl+R)")
                ToolTip.delay: 600
            }
        }
    }
    Shortcut { sequence: "Ctrl+."; enabled: session.busy; onActivated: session.stop() }
    Shortcut { sequence: "Ctrl+R"; enabled: !session.busy; onActivated: startStop.clicked() }
    Shortcut { sequence: "Ctrl+1"; onActivated: sidebar.currentIndex = 0 }
    Shortcut { sequence: "Ctrl+2"; onActivated: sidebar.currentIndex = 1 }
    Shortcut { sequence: "Ctrl+3"; onActivated: sidebar.currentIndex = 2 }
    Shortcut { sequence: "Ctrl+4"; onActivated: sidebar.currentIndex = 3 }
    Shortcut { sequence: "Ctrl+5"; onActivated: sidebar.currentIndex = 4 }
    Shortcut { objectName: "quitShortcut"; sequence: "Ctrl+Q"; context: Qt.ApplicationShortcut; onActivated: win.close() }
    ColorScheme { id: scheme }

    RowLayout {
        anchors.fill: parent
        spacing: 0
        Rectangle {
            Layout.fillHeight: true
            Layout.preferredWidth: 176
            color: pal.base
            ListView {
                id: sidebar
                objectName: "sidebar"
                anchors.fill: parent
                anchors.topMargin: 8
                model: win.pageTitles
                focus: true
                keyNavigationEnabled: true
                highlightMoveDuration: 0
                delegate: ItemDelegate {
                    objectName: "nav_" + win.pageKeys[index]
                    width: ListView.view.width
                    text: modelData
                    highlighted: ListView.isCurrentItem
                    onClicked: sidebar.currentIndex = index
                    // Beside the entry, over the page's margin: above it (the
                    // default) it covered the entry before.
                    ToolTip {
                        objectName: "navToolTip"
                        visible: parent.hovered
                        delay: 900
                        text: qsTr("Ctrl+%1").arg(index + 1)
                        x: parent.width + 4
                        y: (parent.height - height) / 2
                    }
                }
            }
            // The colour scheme: the desktop's by default, or light or dark, remembered.
            ColumnLayout {
                anchors { left: parent.left; right: parent.right; bottom: parent.bottom; margins: 8 }
                spacing: 2
                Label { text: qsTr("Colours"); opacity: 0.7 }
                ComboBox {
                    objectName: "schemeBox"
                    Layout.fillWidth: true
                    readonly property var keys: ["system", "light", "dark"]
                    model: [qsTr("Desktop's"), qsTr("Light"), qsTr("Dark")]
                    currentIndex: Math.max(0, keys.indexOf(scheme.scheme))
                    onActivated: scheme.scheme = keys[currentIndex]
                }
            }
            Rectangle { anchors { right: parent.right; top: parent.top; bottom: parent.bottom } width: 1; color: pal.mid; opacity: 0.6 }
        }
        ColumnLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: 0
            // A member failed: said at once, on every page, until dismissed.
            Rectangle {
                objectName: "memberAlert"
                visible: session.telemetry.memberAlert.length > 0
                Layout.fillWidth: true
                Layout.margins: 12
                Layout.bottomMargin: 0
                implicitHeight: alertRow.implicitHeight + 16
                radius: Theme.radius
                color: Theme.negative
                RowLayout {
                    id: alertRow
                    anchors.fill: parent
                    anchors.margins: 8
                    Label {
                        objectName: "memberAlertText"
                        text: session.telemetry.memberAlert
                        color: "white"
                        wrapMode: Text.Wrap
                        Layout.fillWidth: true
                    }
                    Button {
                        objectName: "memberAlertDismiss"
                        text: qsTr("Dismiss")
                        onClicked: session.telemetry.dismissMemberAlert()
                    }
                }
            }
            // The array is whole again: the banner gives way to a quiet note.
            RowLayout {
                objectName: "memberNote"
                visible: session.telemetry.memberNote.length > 0
                Layout.fillWidth: true
                Layout.leftMargin: 14
                Layout.rightMargin: 12
                Layout.topMargin: 8
                spacing: 8
                Rectangle { width: 8; height: 8; radius: 4; color: Theme.positive }
                Label {
                    objectName: "memberNoteText"
                    text: session.telemetry.memberNote
                    wrapMode: Text.Wrap
                    opacity: 0.8
                    Layout.fillWidth: true
                }
                ToolButton {
                    objectName: "memberNoteDismiss"
                    text: "✕"
                    onClicked: session.telemetry.dismissMemberAlert()
                    ToolTip.visible: hovered; ToolTip.delay: 600
                    ToolTip.text: qsTr("Hide this note")
                }
            }
            StackLayout {
                id: pages
                Layout.fillWidth: true
                Layout.fillHeight: true
                Layout.margins: 12
                currentIndex: sidebar.currentIndex
                DashboardPage { objectName: "dashboardPage"; session: session }
                TunePage { objectName: "tunePage"; session: session }
                ArraysPage { objectName: "arraysPage"; session: session }
                BenchmarkPage {
                    id: benchmarkPage
                    objectName: "benchmarkPage"
                    session: session
                    Connections { target: benchmarkPage.bench; function onResultSaved() { historyPage.history.refresh() } }
                }
                HistoryPage { id: historyPage; objectName: "historyPage" }
            }
        }
    }

    footer: Pane {
        padding: 6
        leftPadding: 12
        visible: session.status === LiveSession.Preparing || session.errorString.length > 0
        RowLayout {
            anchors.fill: parent
            Label {
                objectName: "statusLine"
                Layout.fillWidth: true
                text: session.errorString.length > 0 ? session.errorString : session.statusText
                color: session.errorString.length > 0 ? Theme.negative : pal.windowText
                wrapMode: Text.Wrap
            }
            ProgressBar {
                visible: session.status === LiveSession.Preparing
                value: Math.max(0, session.progress)
                indeterminate: session.progress < 0
                Layout.preferredWidth: 240
            }
            // The open was refused for a risk the user may accept on purpose.
            Button {
                objectName: "openAnywayButton"
                visible: session.openConsent.length > 0
                text: session.openConsent === "degraded" ? qsTr("Start degraded…") : qsTr("Start anyway…")
                onClicked: openAnywayDialog.open()
            }
        }
    }

    Dialog {
        id: openAnywayDialog
        objectName: "openAnywayDialog"
        title: session.openConsent === "degraded" ? qsTr("Start the array degraded") : qsTr("Start a dirty degraded array")
        modal: true
        parent: Overlay.overlay
        anchors.centerIn: parent
        width: Math.min(560, parent ? parent.width - 40 : 560)
        standardButtons: Dialog.Ok | Dialog.Cancel
        Label {
            objectName: "openAnywayText"
            width: parent.width
            wrapMode: Text.Wrap
            text: session.openConsentText
        }
        onAccepted: session.openAnyway()
    }
}
