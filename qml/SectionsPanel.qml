// Every telemetry section the personality publishes (read_balance, bitmap,
// raid5 once it lands...), shown generically as name: key = value, so a
// new section appears without GUI work.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Card {
    id: sp
    property var sections: []
    title: qsTr("Engine sections")
    // Values as the newest sample read them (counters such as read_rr are
    // running totals, list lengths are now, raid5's write counts are the
    // interval's): not all per interval.
    subtitle: qsTr("as the newest sample read them")
    implicitHeight: 56 + col.implicitHeight
    ColumnLayout {
        id: col
        anchors { left: parent.left; right: parent.right; top: parent.top }
        spacing: 6
        Label { visible: sp.sections.length === 0; text: qsTr("The level publishes no section."); opacity: 0.6 }
        // Keyed by counts: the lists are new every sample, the delegates stay.
        Repeater {
            model: sp.sections.length
            ColumnLayout {
                readonly property var section: sp.sections[index] || ({name: "", values: []})
                Layout.fillWidth: true
                spacing: 2
                Label { text: section.name; font.bold: true; objectName: "section_" + section.name }
                Flow {
                    Layout.fillWidth: true
                    spacing: 14
                    Repeater {
                        model: section.values.length
                        Label {
                            readonly property var kv: section.values[index] || ({key: "", value: 0})
                            text: kv.key + " <b>" + Theme.count(kv.value) + "</b>"
                            textFormat: Text.StyledText
                        }
                    }
                }
            }
        }
    }
}
